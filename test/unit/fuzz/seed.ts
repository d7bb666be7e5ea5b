/**
 * The seed of every fuzz run: fixed, so a failure reproduces; EVALSTREAM_FUZZ_SEED picks another
 * (bench/fuzz.ts prints the one it used).
 */
export const FUZZ_SEED = Number(process.env.EVALSTREAM_FUZZ_SEED ?? 20_261_123)

/**
 * The seed and size of every fuzz run. The seed is fixed, so a failure reproduces;
 * EVALSTREAM_FUZZ_SEED picks another (bench/fuzz.ts prints the one it used). Each property runs a
 * small default count in `npm test`; FUZZ_RUNS sets the count of every property for a long run
 * (`FUZZ_RUNS=20000 npx vitest run test/unit/fuzz`).
 */
export const FUZZ_SEED = Number(process.env.EVALSTREAM_FUZZ_SEED ?? 20_261_123)

/** FUZZ_RUNS when set (a whole number >= 1), else `defaultRuns`. */
export function fuzzRuns(defaultRuns: number): number {
  const raw = process.env.FUZZ_RUNS
  if (raw === undefined || raw === '') return defaultRuns
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) throw new Error(`FUZZ_RUNS must be a whole number >= 1, not '${raw}'`)
  return n
}

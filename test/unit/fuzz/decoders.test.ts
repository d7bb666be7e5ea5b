/**
 * Seeded property-based fuzzing of the decoders: the ingest decoder (SSE, NDJSON, JSON; any
 * chunking, invalid UTF-8, torn frames), parseAdkEvent against the zod schema, and the eval set,
 * eval config and result file parsers. bench/fuzz.ts runs far more of the same.
 * Covers: src/ingest/decoder.ts, src/adk/event-fast.ts, src/adk/parse-eval-set.ts, src/adk/eval-config.ts, src/adk/results-json.ts.
 */
import { describe, expect, it } from 'vitest'
import {
  checkDecoder,
  checkEvalFiles,
  checkEventParse,
  decoderInput,
  describeDecoderInput,
  describeText,
  evalFileValue,
  eventValue,
} from './decoder-checks.ts'
import { formatReport, fuzz } from './run.ts'
import { FUZZ_SEED, fuzzRuns } from './seed.ts'

/** Inputs per decoder per `npm test` run (FUZZ_RUNS for a long run). */
export const DECODER_RUNS = fuzzRuns(300)

describe('the decoders survive hostile input', { timeout: 240_000 }, () => {
  it(`ingest decoder: ${DECODER_RUNS} bodies, never throws, same outputs for any chunking`, async () => {
    const report = await fuzz(decoderInput, { seed: FUZZ_SEED, runs: DECODER_RUNS }, checkDecoder, describeDecoderInput)
    expect(report.groups, formatReport('ingest decoder', report)).toEqual([])
  })

  it(`parseAdkEvent: ${DECODER_RUNS} values, never throws, agrees with AdkEvent.safeParse`, async () => {
    const report = await fuzz(eventValue, { seed: FUZZ_SEED, runs: DECODER_RUNS }, checkEventParse, describeText)
    expect(report.groups, formatReport('parseAdkEvent', report)).toEqual([])
  })

  it(`eval set, eval config and result parsers: ${DECODER_RUNS} files, never throw`, async () => {
    const report = await fuzz(evalFileValue, { seed: FUZZ_SEED, runs: DECODER_RUNS }, checkEvalFiles, describeText)
    expect(report.groups, formatReport('eval files', report)).toEqual([])
  })
})

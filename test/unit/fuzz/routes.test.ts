/**
 * Seeded property-based fuzzing of every route, in process through `app.request()`: no hostile
 * request may get a 5xx, throw, hang, or leave a session that can no longer be read, ended and
 * replayed. bench/fuzz.ts runs the same probes 100,000 times; this is the quick seeded share for
 * `npm test`. A failure lists every distinct problem with one input that caused it.
 */
import { describe, expect, it } from 'vitest'
import { makeTarget, runProbe } from './route-driver.ts'
import { FUZZ_SEED, fuzzRuns } from './seed.ts'
import { formatReport, fuzz } from './run.ts'
import { describeProbe, probe } from './route-probes.ts'

/** Inputs per `npm test` run (FUZZ_RUNS for a long run); bench/fuzz.ts runs far more. */
export const ROUTE_RUNS = fuzzRuns(400)

describe('every route survives hostile requests', () => {
  it(`${ROUTE_RUNS} seeded probes: no 5xx, no throw, no hang, no poisoned session`, { timeout: 240_000 }, async () => {
    const target = await makeTarget()
    const report = await fuzz(probe, { seed: FUZZ_SEED, runs: ROUTE_RUNS }, (p) => runProbe(target, p), describeProbe)
    expect(report.runs).toBe(ROUTE_RUNS)
    expect(report.groups, formatReport('routes', report)).toEqual([])
  })
})

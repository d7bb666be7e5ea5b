/**
 * invocation_duration_v1 (ADK docs, informational): the wall-clock seconds an invocation took,
 * measured while the agent runs, never derived from event timestamps (an event is stamped when it is
 * built, before the model call it reports, so a span between stamps misses the last call). Here the
 * host's clock, given to the engine, times it from the invocation's first event arriving to its
 * completion (its final response, the agent closing its stream, or the session's end); a reopened
 * invocation is timed to its last completion. Rounded to milliseconds, as ADK does. Without a clock
 * (a capture read from a file) there is no value, as in ADK when the eval did not run the agent.
 */
import type { Criterion, InvocationTiming } from '../criterion.ts'
import { informational, informationalMean, type NoConfig, noThresholdConfig } from './efficiency.ts'

const KEY = 'invocation_duration_v1'

/** Why there is no duration: the events were not received live. */
export const NOT_MEASURED_REASON = 'not measured: the events were not received live (no clock), e.g. a capture read from a file'

/**
 * Milliseconds to seconds, rounded to the millisecond.
 * @example durationSeconds(1234.56) // 1.235
 */
export function durationSeconds(ms: number): number {
  return Math.round(ms) / 1000
}

/**
 * @example invocation_duration_v1 with timing { durationMs: 1500 } scores 1.5
 */
export const invocationDurationV1: Criterion<NoConfig, null> = {
  key: KEY,
  description:
    "Informational, always reported: seconds from an invocation's first event arriving to its completion, measured live (mean over the case; none for captures read from files). Never passes or fails; a threshold on it is a config error.",
  config: noThresholdConfig(KEY) as never,
  alwaysReported: true,
  needsExpected: false,
  judged: false,
  init: () => null,
  finish(_state, _actual, timing?: InvocationTiming) {
    if (!timing || !Number.isFinite(timing.durationMs)) return { kind: 'score', result: informational(null, NOT_MEASURED_REASON) }
    return { kind: 'score', result: informational(durationSeconds(Math.max(0, timing.durationMs))) }
  },
  aggregate: informationalMean,
}

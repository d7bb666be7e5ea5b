/**
 * Admission of new sessions under load. A process that takes every new session while its event
 * loop is already behind only makes every session slower: new connections wait in the kernel's
 * accept queue for a turn of the loop, and verdict latency grows without bound (seconds, then tens
 * of seconds). A host that measures its loop (the Node server: perf_hooks' event-loop delay) gives
 * the app an `Admission`; while it says the process is over budget, `POST /v1/sessions` is
 * answered 503 with `Retry-After` and the sessions already admitted keep the process to themselves.
 */
import type { Failure } from '../engine/problem.ts'
import { failure } from '../engine/problem.ts'

/** Asked once per session creation: undefined admits it, a refusal says when to come back. */
export type Admission = () => AdmissionRefusal | undefined

export type AdmissionRefusal = { retryAfterS: number; measuredMs: number; limitMs: number; variable: string }

/** The 503 a refused creation gets (its Retry-After header is set by the route). */
export function admissionProblem(r: AdmissionRefusal): Failure {
  return failure(
    503,
    'Server at capacity',
    `the event loop's delay (p99 over the last second, or the turn in progress) is ${
      Math.round(r.measuredMs)
    } ms, above ${r.limitMs} ms (${r.variable}): no new session now, the ones admitted are served first; retry after ${r.retryAfterS} s`,
    { limit: { name: r.variable, value: r.limitMs } },
  )
}

/**
 * An admission that refuses while the recent loop delay is above `limitMs`.
 * @example
 * const admission = admissionFromLag(() => lastSecondP99Ms, 250)
 */
export function admissionFromLag(recentDelayMs: () => number, limitMs: number, variable = 'EVALSTREAM_ADMISSION_LAG_MS'): Admission {
  return () => {
    const measuredMs = recentDelayMs()
    return measuredMs > limitMs ? { retryAfterS: 1, measuredMs, limitMs, variable } : undefined
  }
}

/**
 * Admission of new sessions under load. A process that takes every new session while its event
 * loop is already saturated only makes every session slower: new connections wait in the kernel's
 * accept queue for a turn of the loop, and verdict latency grows without bound (seconds, then tens
 * of seconds). A host that measures its loop (the Node server: `loop-pressure.ts`) gives the app an
 * `Admission`; while it says the process is over budget, `POST /v1/sessions` is answered 503 with
 * `Retry-After` and the sessions already admitted keep the process to themselves.
 *
 * Over budget means both at once: the loop is late (its delay is above the limit) and the loop is
 * busy with its own work (its utilization over the last window is at least the busy share). A late
 * loop alone is what a healthy server on a busy machine shows: other processes hold the cores, the
 * loop waits for one, and refusing sessions would not give it any back. A loop that is late and
 * busy is saturated by this process's own work, which new sessions would only add to.
 */
import type { Failure } from '../engine/problem.ts'
import { failure } from '../engine/problem.ts'

/** Asked once per session creation: undefined admits it, a refusal says when to come back. */
export type Admission = () => AdmissionRefusal | undefined

export type AdmissionRefusal = { retryAfterS: number; measuredMs: number; busyShare: number; limitMs: number; variable: string }

/**
 * What the host measured of its event loop just now.
 * - `delayMs`: how late the loop is (the worst of the last window's p99 delay, the running
 *   window's, and how long the turn in progress has run).
 * - `busyShare`: the loop's utilization (0..1) over the last window, a window not yet complete
 *   counted as idle for the part before the measurement began, so start-up never counts as busy.
 */
export type LoopPressure = { delayMs: number; busyShare: number }

export type AdmissionLimits = {
  /** Delay (ms) above which a busy loop refuses new sessions. */
  lagMs: number
  /** Utilization (0..1) at or above which a late loop counts as saturated by its own work. */
  busyShare: number
}

/** Retry-After is twice the measured delay: the loop must first work off the backlog it is behind by. */
export const RETRY_AFTER_PER_DELAY = 2
/** Retry-After is never more than this (s): a client should look again within half a minute. */
export const MAX_RETRY_AFTER_S = 30

/** Seconds a refused client should wait, from how late the loop is (1 to MAX_RETRY_AFTER_S). */
export function retryAfterFor(delayMs: number): number {
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil((delayMs * RETRY_AFTER_PER_DELAY) / 1000)))
}

/** The 503 a refused creation gets (its Retry-After header is set by the route). */
export function admissionProblem(r: AdmissionRefusal): Failure {
  return failure(
    'at_capacity',
    'Server at capacity',
    `the event loop is ${Math.round(r.measuredMs)} ms late (above ${r.limitMs} ms, ${r.variable}) and busy ${
      Math.round(r.busyShare * 100)
    }% of the last second with its own work: no new session now, the ones admitted are served first; retry after ${r.retryAfterS} s`,
    { limit: { name: r.variable, value: r.limitMs } },
  )
}

/**
 * An admission that refuses while the loop is both later than `limits.lagMs` and busy at least
 * `limits.busyShare` of the time.
 * @example
 * const admission = admissionFromLoop(() => ({ delayMs: 400, busyShare: 0.97 }), { lagMs: 250, busyShare: 0.9 })
 * admission() // { retryAfterS: 1, measuredMs: 400, busyShare: 0.97, limitMs: 250, variable: 'EVALSTREAM_ADMISSION_LAG_MS' }
 */
export function admissionFromLoop(
  pressure: () => LoopPressure,
  limits: AdmissionLimits,
  variable = 'EVALSTREAM_ADMISSION_LAG_MS',
): Admission {
  return () => {
    const { delayMs, busyShare } = pressure()
    if (delayMs <= limits.lagMs || busyShare < limits.busyShare) return undefined
    return { retryAfterS: retryAfterFor(delayMs), measuredMs: delayMs, busyShare, limitMs: limits.lagMs, variable }
  }
}

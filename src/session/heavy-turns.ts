/**
 * Turns for the heavy work of a session's life: building its case result at the end (reading
 * back its events and results, ADK's file shape, ~5 ms for 50 invocations) and an ended session's
 * snapshot (reading its results back).
 *
 * That work starts once the session's writes are committed, and one commit wakes every session
 * that waited on it at once: their continuations ran back to back in one microtask checkpoint.
 * A thousand sessions ending within two seconds held the event loop for 1-4 s in a row, and every
 * other session's uploads and verdicts waited behind them. Through here at most
 * HEAVY_JOBS_PER_TURN start per turn of the event loop; the rest wait for the next turns, with
 * the I/O that arrived in between served first.
 */
import { nextTurn } from '../ingest/turn-slicer.ts'

/** Heavy jobs that may start in one turn of the event loop. */
export const HEAVY_JOBS_PER_TURN = 2

// Immediates run once per turn, after its I/O; one queued while they run waits for the next turn.
// workerd has none (a Durable Object holds one session, so there is no crowd to spread): there a
// timer stands in.

const waiting: Array<() => void> = []
let scheduled = false

function release(): void {
  for (let n = 0; n < HEAVY_JOBS_PER_TURN && waiting.length > 0; n++) waiting.shift()!()
  scheduled = waiting.length > 0
  if (scheduled) nextTurn(release)
}

/**
 * Resolves when this caller may start its heavy work: in a later turn of the event loop, after at
 * most HEAVY_JOBS_PER_TURN - 1 others that asked first in that turn.
 * @example await heavyTurn(); buildCaseResult(...)
 */
export function heavyTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve)
    if (scheduled) return
    scheduled = true
    nextTurn(release)
  })
}

/** Callers waiting for a turn right now. */
export function heavyTurnsWaiting(): number {
  return waiting.length
}

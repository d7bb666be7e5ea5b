/**
 * What stands in for a session's engine once the session has ended: its final snapshot and case
 * result, and nothing else. The live engine keeps every event, every invocation and the criteria's
 * state; an ended session held only for its results must not keep all that for its whole retention.
 */
import type { SessionEngine, SessionSnapshot } from '../engine/types.ts'

/**
 * @example
 * const frozen = endedEngine(engine.snapshot()) // after `await engine.end()`
 */
export function endedEngine(final: SessionSnapshot): SessionEngine {
  const result = final.case_result
  if (!result) throw new Error(`session '${final.session_id}' has no case result: an engine is frozen only after end()`)
  return {
    push() {},
    reject() {},
    completeInvocation() {},
    end: () => Promise.resolve(result),
    snapshot: () => final,
    abort() {},
  }
}

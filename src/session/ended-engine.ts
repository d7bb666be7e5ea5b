/**
 * What stands in for a session's engine once the session has ended and the host kept its final
 * snapshot and case result: nothing more can be fed, and nothing is held. The live engine keeps
 * every event, every invocation and the criteria's state; an ended session held only for its
 * results must not keep all that for its whole retention.
 */
import type { SessionEngine } from '../engine/types.ts'

/**
 * @example
 * this.engine = endedEngine('s1') // after `await engine.end()` and keeping its snapshot
 */
export function endedEngine(sessionId: string): SessionEngine {
  const gone = () => new Error(`session '${sessionId}' has ended and let its engine go; its host answers from the final snapshot`)
  return {
    push() {},
    reject() {},
    completeInvocation() {},
    end: () => Promise.reject(gone()),
    snapshot: () => {
      throw gone()
    },
    abort() {},
  }
}

/**
 * Criteria with a closing step (a judgement over the whole conversation, such as
 * per_turn_user_simulator_quality_v1's stop-signal turn) may revise the last invocation's result
 * once the session ends. The step needs the last invocation's criterion context, not its run: the
 * run was dropped when the invocation was released.
 */
import type { Invocation } from '../adk/invocation.ts'
import type { InvocationScore } from '../core/criterion.ts'
import { contextsFor, type InvocationState, type MetricSlot, type SessionFacts } from './invocation-state.ts'
import { closingOutcome, type JudgeRunner, settle, waitForJudges } from './metric-run.ts'

export type ClosingJudging = {
  judge?: JudgeRunner
  noJudgeReason?: string
  /** How long to wait for the closing judges before aborting them (NOT_EVALUATED). */
  waitMs: number
  abort: AbortController
}

/**
 * The last invocation's slots whose result a closing step changed, each with its new result.
 * @example for (const c of await closingRevisions(facts, last, () => all, judging)) record(c.slot, c.after)
 */
export async function closingRevisions(
  session: SessionFacts,
  last: InvocationState,
  invocations: () => Invocation[],
  judging: ClosingJudging,
): Promise<Array<{ slot: MetricSlot; after: InvocationScore }>> {
  // The engine expanded it (verdicts.ts) before asking.
  const slots = last.slots!
  if (!slots.some(hasClosing)) return []
  const all = invocations()
  const contexts = contextsFor(session, last.index)
  const closings = slots.flatMap((slot) => {
    const before = slot.score
    const run = contexts(slot.plan)
    const outcome = before && run && closingOutcome(run.criterion, run.context, all, before)
    return outcome ? [{ slot, before, outcome }] : []
  })
  if (closings.length === 0) return []
  const settled = closings.map(async (c) => ({
    ...c,
    after: await settle(c.outcome, judging.judge, judging.abort.signal, judging.noJudgeReason),
  }))
  const pending = new Set(settled.map((p) => p.then(() => {})))
  await waitForJudges(pending, judging.waitMs, judging.abort)
  return (await Promise.all(settled)).filter((c) => c.after !== c.before)
}

function hasClosing(slot: MetricSlot): boolean {
  return 'criterion' in slot.plan.runnable && slot.plan.runnable.criterion.closing !== undefined
}

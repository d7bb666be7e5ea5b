/**
 * What the engine reports of its slots (an invocation and one metric each): the result bodies it
 * emits, an early verdict while the invocation runs and each decided score, and the snapshot of
 * the latest results. Keys are stable (result-keys.ts): a replayed session emits the same results
 * under the same keys.
 */
import { statusFor } from '../adk/status.ts'
import type { InvocationScore, Provisional } from '../core/criterion.ts'
import type { EvalCaseResult } from '../adk/results.ts'
import type { InvocationState, MetricSlot } from './invocation-state.ts'
import type { SessionPlan } from './plan.ts'
import { progressKey, resultKey } from './result-keys.ts'
import { snapshotScore } from './verdicts.ts'
import type { EngineEmission, SessionSnapshot } from './types.ts'
import type { CriterionResultData } from './result-events.ts'

/**
 * The slot's `progressCount`-th early verdict (the caller counts it first).
 * @example emit(progressResult(invocation, slot, { score: 1, final: true }))
 */
export function progressResult(invocation: InvocationState, slot: MetricSlot, provisional: Provisional): EngineEmission {
  const { threshold, metric_name } = slot.plan.metric
  return {
    type: 'criterion.progress',
    key: progressKey(invocation.index, metric_name, slot.progressCount),
    data: {
      invocation_id: invocation.id,
      invocation_index: invocation.index,
      metric_name,
      score: provisional.score,
      threshold,
      eval_status: statusFor(provisional.score, threshold),
      final: provisional.final,
      details: provisional.details ?? {},
    },
  }
}

/**
 * A decided score of the slot, as of the invocation's `generation` (a revision past the first).
 * @example emit(criterionResult(invocation, slot, 0, { score: 1 }))
 */
export function criterionResult(
  invocation: InvocationState,
  slot: MetricSlot,
  generation: number,
  result: InvocationScore,
): EngineEmission {
  const { threshold, metric_name } = slot.plan.metric
  // Written field by field, optional ones last, in the order the spreads gave: one object per
  // result, where spreading made two or three more (every result the engine emits is one).
  const data: CriterionResultData = {
    invocation_id: invocation.id,
    invocation_index: invocation.index,
    metric_name,
    score: result.score,
    threshold,
    eval_status: result.status ?? statusFor(result.score, threshold),
    details: result.details ?? {},
  }
  if (result.reason !== undefined) data.reason = result.reason
  if (generation > 0) data.revision = generation
  return { type: 'criterion.result', key: resultKey(invocation.index, metric_name, generation), data }
}

/**
 * Each invocation's latest result per metric (null until it completes; `scores` has them, as
 * verdicts.ts reads them; without `scores`, no results), and the case result once the session ended.
 * @example resultsSnapshot('s1', plan, invocations, scoreTable(invocations, read), undefined).invocations[0]?.results
 */
export function resultsSnapshot(
  sessionId: string,
  plan: SessionPlan,
  invocations: readonly InvocationState[],
  scores: ReadonlyArray<ReadonlyArray<InvocationScore | undefined>> | undefined,
  ended: EvalCaseResult | undefined,
): SessionSnapshot {
  return {
    session_id: sessionId,
    ended: ended !== undefined,
    metrics: plan.metrics.map((m) => m.metric.metric_name),
    invocations: invocations.map((invocation, n) => ({
      invocation_id: invocation.id,
      invocation_index: invocation.index,
      completed: invocation.completed,
      results: !scores ? {} : Object.fromEntries(plan.metrics.map(({ metric }, i) => {
        const score = scores[n]![i]
        return [metric.metric_name, score ? snapshotScore(score, metric.threshold) : null]
      })),
    })),
    case_result: ended ?? null,
  }
}

/**
 * Assembles ADK's EvalCaseResult from the engine's per-invocation results, typed, in ADK's model, so
 * ADK's own tools can read what evalstream writes once the host serialises it.
 *
 * Difference from ADK: when a metric's overall status is NOT_EVALUATED, ADK blanks every
 * per-invocation entry of it (adk-python #6725); evalstream keeps the per-invocation values it has.
 */
import type { Invocation } from '../adk/invocation.ts'
import { isRecord } from '../adk/json.ts'
import { type EvalCaseResult, evalCaseResult, evalMetricResult, type RubricScore, type TokenUsageDetails } from '../adk/results.ts'
import { statusFor } from '../adk/status.ts'
import { meanAggregate } from '../core/aggregate.ts'
import type { InvocationScore, OverallScore } from '../core/criterion.ts'
import type { SessionPlan } from './plan.ts'

export type CaseResultInput = {
  sessionId: string
  plan: SessionPlan
  /** Each invocation's latest result per metric, in first-seen and config order (verdicts.ts `scoreTable`). */
  scores: ReadonlyArray<ReadonlyArray<InvocationScore | undefined>>
  /** The invocations as built from the events, in the same order. */
  actual: readonly Invocation[]
  evalSetId?: string
  userId?: string
}

/**
 * The overall score of each metric, in config order.
 * @example overallScores(plan, []) // every runnable metric: its aggregate of no scores (NOT_EVALUATED)
 */
export function overallScores(plan: SessionPlan, scores: ReadonlyArray<ReadonlyArray<InvocationScore | undefined>>): OverallScore[] {
  return plan.metrics.map((m, i) => {
    if ('reason' in m.runnable) return { score: null, status: 'NOT_EVALUATED', reason: m.runnable.reason }
    const perInvocation: InvocationScore[] = []
    for (const invocation of scores) {
      const score = invocation[i]
      if (score !== undefined) perInvocation.push(score)
    }
    const aggregate = m.runnable.criterion.aggregate ?? meanAggregate
    return aggregate(perInvocation, m.runnable.config)
  })
}

function rubricScoresOf(details: Record<string, unknown> | undefined, key: string): RubricScore[] | null {
  const value = details?.[key]
  return Array.isArray(value) ? (value as RubricScore[]) : null
}

/** token_usage_v1's breakdown, which ADK writes in the result's details. */
function tokenUsageOf(details: Record<string, unknown> | undefined): TokenUsageDetails | null {
  const value = details?.token_usage_details
  return isRecord(value) ? (value as TokenUsageDetails) : null
}

/**
 * The session's EvalCaseResult (statuses as names; `evalCaseResultValue` writes the file shape).
 * @example buildCaseResult({ sessionId: 's', plan, scores: [], actual: [] }).final_eval_status // 'NOT_EVALUATED'
 */
export function buildCaseResult(input: CaseResultInput): EvalCaseResult {
  const { plan } = input
  const overall = overallScores(plan, input.scores)
  return evalCaseResult({
    evalSetId: input.evalSetId ?? '',
    evalId: plan.evalCase?.eval_id ?? input.sessionId,
    sessionId: input.sessionId,
    userId: input.userId,
    overall: overall.map((o, i) =>
      evalMetricResult(plan.metrics[i]!.metric, {
        score: o.score,
        status: o.status,
        rubricScores: rubricScoresOf(o.details, 'overall_rubric_scores'),
        tokenUsageDetails: tokenUsageOf(o.details),
      })
    ),
    perInvocation: input.actual.map((actual, n) => ({
      actual_invocation: actual,
      expected_invocation: plan.expected?.[n] ?? null,
      eval_metric_results: plan.metrics.map((m, i) => {
        const s = input.scores[n]?.[i]
        const score = s?.score ?? null
        return evalMetricResult(m.metric, {
          score,
          status: s?.status ?? statusFor(score, m.metric.threshold),
          rubricScores: rubricScoresOf(s?.details, 'rubric_scores'),
          tokenUsageDetails: tokenUsageOf(s?.details),
        })
      }),
    })),
  })
}

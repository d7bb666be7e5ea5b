/**
 * Assembles ADK's EvalCaseResult from the engine's per-invocation scores, in ADK's shape, so ADK's
 * own tools can read what evalstream writes.
 *
 * Difference from ADK: when a metric's overall status is NOT_EVALUATED, ADK blanks every
 * per-invocation entry of it (adk-python #6725); evalstream keeps the per-invocation values it has.
 */
import type { Invocation } from '../adk/invocation.ts'
import { evalCaseResult, evalMetricResult, type EvalCaseResult, type RubricScore } from '../adk/results.ts'
import { meanAggregate } from '../core/aggregate.ts'
import type { InvocationScore, OverallScore } from '../core/criterion.ts'
import { statusFor } from '../adk/status.ts'
import type { SessionPlan } from './spec.ts'

/** scores[metric index][invocation index] */
export type MetricScores = Array<Array<InvocationScore | undefined>>

export type CaseResultInput = {
  sessionId: string
  plan: SessionPlan
  scores: MetricScores
  actual: Invocation[]
  evalSetId?: string
  userId?: string
}

/** The overall score of each metric, in config order. */
export function overallScores(plan: SessionPlan, scores: MetricScores): OverallScore[] {
  return plan.metrics.map((m, i) => {
    if ('reason' in m.runnable) return { score: null, status: 'NOT_EVALUATED', reason: m.runnable.reason }
    const perInvocation = (scores[i] ?? []).filter((s): s is InvocationScore => s !== undefined)
    const aggregate = m.runnable.criterion.aggregate ?? meanAggregate
    return aggregate(perInvocation, m.runnable.config)
  })
}

function rubricScoresOf(details: Record<string, unknown> | undefined, key: string): RubricScore[] | null {
  const value = details?.[key]
  return Array.isArray(value) ? (value as RubricScore[]) : null
}

export function buildCaseResult(input: CaseResultInput): { typed: EvalCaseResult; overall: OverallScore[] } {
  const { plan, scores } = input
  const overall = overallScores(plan, scores)
  const typed = evalCaseResult({
    evalSetId: input.evalSetId ?? '',
    evalId: plan.evalCase?.eval_id ?? input.sessionId,
    sessionId: input.sessionId,
    userId: input.userId,
    overall: overall.map((o, i) =>
      evalMetricResult(plan.metrics[i]!.metric, {
        score: o.score,
        status: o.status,
        rubricScores: rubricScoresOf(o.details, 'overall_rubric_scores'),
      }),
    ),
    perInvocation: input.actual.map((actual, n) => ({
      actual_invocation: actual,
      expected_invocation: plan.expected?.[n] ?? null,
      eval_metric_results: plan.metrics.map((m, i) => {
        const s = scores[i]?.[n]
        const score = s?.score ?? null
        return evalMetricResult(m.metric, {
          score,
          status: s?.status ?? statusFor(score, m.metric.threshold),
          rubricScores: rubricScoresOf(s?.details, 'rubric_scores'),
        })
      }),
    })),
  })
  return { typed, overall }
}

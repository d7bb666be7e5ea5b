/**
 * The verdict on a case over its runs. One run: the case result's own status, as `adk eval` and
 * `evalstream eval` give it. Several runs (`--num-runs`): AgentEvaluator's rule (spec §3): per
 * metric, the mean of every per-invocation score of every run that is not null, compared with
 * `>=` against the threshold; the case passes only when every metric passes. A run the agent
 * broke makes the case NOT_EVALUATED with that run's reason.
 */
import { type CaseStatus, type EvalStatus, statusFor } from '../adk/status.ts'
import type { CaseRunOutcome } from './run-case.ts'

export type MetricVerdict = { metric_name: string; score: number | null; threshold: number; eval_status: EvalStatus; reason?: string }

export type CaseVerdict = {
  evalSetId: string
  evalId: string
  status: CaseStatus
  reason?: string
  /** Per metric, in config order: the single run's overall, or the mean over runs. */
  overall: MetricVerdict[]
  runs: CaseRunOutcome[]
}

/**
 * @example caseVerdict([outcome]).status // outcome.status
 */
export function caseVerdict(runs: CaseRunOutcome[]): CaseVerdict {
  const first = runs[0]!
  const base = { evalSetId: first.evalSetId, evalId: first.evalId, runs }
  const broken = runs.find((r) => r.reason !== undefined)
  if (broken) {
    const prefix = runs.length > 1 ? `run ${broken.run + 1}: ` : ''
    return { ...base, status: 'NOT_EVALUATED', reason: prefix + broken.reason, overall: [] }
  }
  if (runs.length === 1) {
    const overall = first.caseResult.overall_eval_metric_results.map((m) => ({
      metric_name: m.metric_name,
      score: m.score,
      threshold: m.threshold ?? 0,
      eval_status: m.eval_status,
      ...(m.eval_status === 'NOT_EVALUATED' ? { reason: reasonFor(first, m.metric_name) } : {}),
    }))
    return { ...base, status: first.status, overall }
  }
  const overall = first.caseResult.overall_eval_metric_results.map((metric, i): MetricVerdict => {
    const scores: number[] = []
    for (const run of runs) {
      for (const perInvocation of run.caseResult.eval_metric_result_per_invocation) {
        const score = perInvocation.eval_metric_results[i]?.score
        if (typeof score === 'number' && !Number.isNaN(score)) scores.push(score)
      }
    }
    const threshold = metric.threshold ?? 0
    const score = scores.length > 0 ? scores.reduce((a, b) => a + b, 0) / scores.length : null
    // Informational metrics (no threshold) report the pooled mean and never decide the case.
    const eval_status = statusFor(score, metric.eval_status === 'INFORMATIONAL' ? null : threshold)
    return {
      metric_name: metric.metric_name,
      score,
      threshold,
      eval_status,
      ...(score === null ? { reason: reasonFor(first, metric.metric_name) } : {}),
    }
  })
  const gating = overall.filter((m) => m.eval_status !== 'INFORMATIONAL')
  const status: CaseStatus = gating.length > 0 && gating.every((m) => m.eval_status === 'PASSED')
    ? 'PASSED'
    : overall.some((m) => m.eval_status === 'FAILED')
    ? 'FAILED'
    : 'NOT_EVALUATED'
  return { ...base, status, overall }
}

function reasonFor(run: CaseRunOutcome, metric: string): string {
  return run.results.find((r) => r.metric_name === metric && r.reason)?.reason ?? 'no invocation was scored'
}

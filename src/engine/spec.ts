/**
 * Turns a session's spec (ADK EvalConfig + optional EvalCase) into what the engine runs: one entry
 * per configured metric, each either a criterion with its parsed config or a reason why the metric
 * cannot be evaluated. ADK turns a bad or unknown criterion into NOT_EVALUATED rather than an
 * error (spec §1.4, §2.9), and so does evalstream; only a malformed config or case is a 4xx.
 */
import { DEFAULT_EVAL_CONFIG, evalMetricsOf, parseEvalConfig, type EvalMetric } from '../adk/eval-config.ts'
import { EvalCase } from '../adk/eval-set.ts'
import type { Invocation, Rubric } from '../adk/invocation.ts'
import { describeZodError } from '../adk/parse-error.ts'
import type { AnyCriterion } from '../core/criterion.ts'
import { criterionByName } from '../core/registry.ts'

export type MetricPlan = {
  metric: EvalMetric
  /** The criterion and its parsed config, or why this metric cannot be evaluated at all. */
  runnable: { criterion: AnyCriterion; config: { threshold: number } } | { reason: string }
}

export type SessionPlan = {
  metrics: MetricPlan[]
  evalCase?: EvalCase
  /** The case's static conversation; absent for conversation scenarios and case-less sessions. */
  expected?: Invocation[]
}

export type SpecProblem = { status: 400 | 422; title: string; detail: string }

export function planSession(
  spec: { eval_config?: unknown; eval_case?: unknown },
  defaultConfig: unknown = DEFAULT_EVAL_CONFIG,
): { ok: true; plan: SessionPlan } | { ok: false; problem: SpecProblem } {
  const parsedConfig = parseEvalConfig(spec.eval_config ?? defaultConfig, { source: 'eval_config' })
  if (!parsedConfig.ok)
    return { ok: false, problem: { status: 422, title: 'Invalid eval_config', detail: parsedConfig.error.message } }

  let evalCase: EvalCase | undefined
  if (spec.eval_case !== undefined) {
    const parsedCase = EvalCase.safeParse(spec.eval_case)
    if (!parsedCase.success)
      return {
        ok: false,
        problem: {
          status: 422,
          title: 'Invalid eval_case',
          detail: describeZodError(parsedCase.error, { source: 'eval_case' }),
        },
      }
    evalCase = parsedCase.data
  }

  const metrics = evalMetricsOf(parsedConfig.config).map((metric) => ({ metric, runnable: resolve(metric) }))
  return { ok: true, plan: { metrics, evalCase, expected: evalCase?.conversation ?? undefined } }
}

function resolve(metric: EvalMetric): MetricPlan['runnable'] {
  const criterion = criterionByName(metric.metric_name)
  if (!criterion) return { reason: `metric '${metric.metric_name}' is not implemented by evalstream` }
  const parsed = criterion.config.safeParse({ ...metric.criterion, threshold: metric.threshold })
  if (!parsed.success)
    return {
      reason: `invalid criterion for '${metric.metric_name}': ${describeZodError(parsed.error, { source: `criteria.${metric.metric_name}` })}`,
    }
  return { criterion, config: parsed.data as { threshold: number } }
}

/**
 * Rubrics that apply to the n-th actual invocation: the case's rubrics, then the n-th expected
 * invocation's rubrics (ADK copies both onto the actual invocation, spec §1.5).
 */
export function rubricsForInvocation(plan: SessionPlan, index: number): Rubric[] | undefined {
  const fromCase = plan.evalCase?.rubrics ?? []
  const fromExpected = plan.expected?.[index]?.rubrics ?? []
  const all = [...fromCase, ...fromExpected]
  return all.length > 0 ? all : undefined
}

/**
 * `/run_sse` streams the agent's events only, not the user's message, so an invocation built from a
 * pushed stream can lack its user content. The expected invocation's user content stands in (the
 * conversation replays it verbatim); proxied runs get a real user event from the request instead.
 */
export function withUserContent(actual: Invocation, expected: Invocation | undefined): Invocation {
  if ((actual.user_content.parts?.length ?? 0) > 0 || !expected) return actual
  return { ...actual, user_content: expected.user_content }
}

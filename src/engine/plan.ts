/**
 * Turns a session's spec (ADK EvalConfig + optional EvalCase) into what the engine runs: one entry
 * per configured metric, each either a criterion with its parsed config or a reason why the metric
 * cannot be evaluated. A metric evalstream does not implement is NOT_EVALUATED, as in ADK (spec
 * §1.4, §2.9: an unknown name raises NotFoundError, which ADK records as NOT_EVALUATED). A config
 * that cannot be right anywhere is bad input instead (422, or exit 2 in the CLI), naming the JSON
 * path: a malformed config or case, and a known criterion with options it rejects (an unknown
 * `match_type`, a threshold that is not a number). ADK would run the case and report that metric
 * NOT_EVALUATED; a live service should refuse the session at creation instead of scoring it
 * without the metric its owner asked for.
 */
import { failure, type ProblemOf } from './problem.ts'
import { DEFAULT_EVAL_CONFIG, type EvalConfig, type EvalMetric, evalMetricsOf, parseEvalConfig } from '../adk/eval-config.ts'
import type { EvalCase } from '../adk/eval-set.ts'
import { parseEvalCaseShared } from './interned-cases.ts'
import type { Invocation, Rubric } from '../adk/invocation.ts'
import { describeZodError, MAX_LISTED_ISSUES, readableIssues } from '../adk/parse-error.ts'
import type { AnyCriterion } from '../core/criterion.ts'
import { alwaysReportedCriteria, criterionByName } from '../core/registry.ts'

export type MetricPlan = {
  metric: EvalMetric
  /** The criterion and its parsed config, or why this metric cannot be evaluated at all. */
  runnable: { criterion: AnyCriterion; config: { threshold: number | null } } | { reason: string }
}

export type SessionPlan = {
  /** Read-only: sessions with equal configs share one list (`sharedMetricPlans`). */
  metrics: readonly MetricPlan[]
  evalCase?: EvalCase
  /** The case's static conversation; absent for conversation scenarios and case-less sessions. */
  expected?: Invocation[]
}

export type SpecProblem = ProblemOf<'invalid_eval_config' | 'invalid_eval_case'>

/**
 * @example
 * const planned = planSession({ eval_config: { criteria: { response_match_score: 0.8 } } })
 * if (!planned.ok) return problem(c, planned.problem)
 */
export function planSession(
  spec: { eval_config?: unknown; eval_case?: unknown },
  defaultConfig: unknown = DEFAULT_EVAL_CONFIG,
  options: { configSource?: string } = {},
): { ok: true; plan: SessionPlan } | { ok: false; problem: SpecProblem } {
  const configSource = options.configSource ?? 'eval_config'
  const config = spec.eval_config ?? defaultConfig
  // A config planned before (and so valid) is neither parsed nor planned again.
  const key = sharingKey(configSource, config)
  const shared = key === undefined ? undefined : sharedMetricPlans.get(key)
  let parsedConfig: EvalConfig | undefined
  if (!shared) {
    const parsed = parseEvalConfig(config, { source: configSource })
    if (!parsed.ok) return failure('invalid_eval_config', 'Invalid eval_config', parsed.error.message)
    parsedConfig = parsed.config
  }

  let evalCase: EvalCase | undefined
  if (spec.eval_case !== undefined) {
    // Equal cases (a thousand sessions of one eval set) share one parse (interned-cases.ts).
    const parsedCase = parseEvalCaseShared(spec.eval_case)
    if (!parsedCase.success) {
      return failure('invalid_eval_case', 'Invalid eval_case', describeZodError(parsedCase.error, { source: 'eval_case' }))
    }
    evalCase = parsedCase.data
  }

  const metrics = shared ?? planMetrics(parsedConfig!, configSource, key)
  if ('problem' in metrics) return failure('invalid_eval_config', 'Invalid eval_config', metrics.problem)
  return { ok: true, plan: { metrics, evalCase, expected: evalCase?.conversation ?? undefined } }
}

/** The metrics a valid config plans, kept for the next session with the same `key`; or its problem. */
function planMetrics(config: EvalConfig, configSource: string, key: string | undefined): readonly MetricPlan[] | { problem: string } {
  const metrics: MetricPlan[] = []
  for (const metric of evalMetricsOf(config)) {
    const resolved = resolve(metric)
    if ('problem' in resolved) return { problem: `${configSource}: ${resolved.problem}` }
    metrics.push({ metric, runnable: resolved })
  }
  // ADK's efficiency metrics: reported for every case, unconfigured (no threshold, no criterion).
  for (const criterion of alwaysReportedCriteria()) {
    metrics.push({
      metric: { metric_name: criterion.key, threshold: null, criterion: null },
      runnable: { criterion, config: { threshold: null } },
    })
  }
  if (key !== undefined) {
    if (sharedMetricPlans.size >= MAX_SHARED_METRIC_PLANS) sharedMetricPlans.clear()
    sharedMetricPlans.set(key, Object.freeze(metrics))
  }
  return metrics
}

/**
 * Metric plans shared by the sessions of equal configs: a thousand sessions of one eval set plan
 * the same metrics, 1.4 KiB per session each before. Bounded: the table starts over once it holds
 * MAX_SHARED_METRIC_PLANS configs. Only configs that plan without a problem are kept.
 */
export const MAX_SHARED_METRIC_PLANS = 256
/** Configs longer than this (characters of JSON) are planned per session, not kept. */
export const MAX_SHARED_CONFIG_CHARS = 100_000
const sharedMetricPlans = new Map<string, readonly MetricPlan[]>()

/** The config's text with where it came from (problems name it), or undefined when it has none. */
function sharingKey(source: string, config: unknown): string | undefined {
  let text: string | undefined
  try {
    text = JSON.stringify(config)
  } catch {
    return undefined
  }
  return text === undefined || text.length > MAX_SHARED_CONFIG_CHARS ? undefined : `${source}\n${text}`
}

/** The metric's criterion with its options parsed; a reason if evalstream has no such criterion. */
function resolve(metric: EvalMetric): MetricPlan['runnable'] | { problem: string } {
  const criterion = criterionByName(metric.metric_name)
  if (!criterion) {
    return { reason: `metric '${metric.metric_name}' is not implemented by evalstream` }
  }
  const parsed = criterion.config.safeParse({ ...metric.criterion, threshold: metric.threshold })
  if (parsed.success) return { criterion, config: parsed.data as { threshold: number } }
  // Paths from the config document's root: $.criteria.<metric>.<option>.
  const issues = readableIssues(parsed.error.issues, ['criteria', metric.metric_name]).slice(0, MAX_LISTED_ISSUES)
  return { problem: issues.map((i) => `${i.path}: ${i.message}`).join('; ') }
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

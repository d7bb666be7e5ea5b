/**
 * ADK's EvalConfig (`--config_file_path`, `test_config.json`; spec §1.4) and the EvalMetric list the
 * evaluator runs. Each criterion is kept as ADK keeps it, a BaseCriterion with every extra key in its
 * original spelling; each criterion re-validates its own options later (match_type, judge options...).
 */
import * as z from 'zod'
import { lazySchema } from './lazy-schema.ts'
import { type AdkModel, adkObject, lazyAdkObject, optionalField } from './casing.ts'
import { laxFloat } from './eval-set.ts'
import { parseErrorFromZod, type ParseFailure } from './parse-error.ts'
import { isRecord } from './json.ts'

const nullish = optionalField

/**
 * ADK's BaseCriterion: `threshold` is required, unknown keys are kept (`extra="allow"`). Declared
 * fields come first, then the extras in input order: the order pydantic dumps them in.
 * @example BaseCriterion.parse({ threshold: 1, match_type: 'IN_ORDER' })
 * // { threshold: 1, include_intermediate_responses_in_final: false, match_type: 'IN_ORDER' }
 */
export type BaseCriterion = {
  threshold: number
  include_intermediate_responses_in_final: boolean
  /** Extras are typed `unknown`: each criterion parses its own options. */
  [option: string]: unknown
}
export const BaseCriterion: AdkModel<BaseCriterion> = lazyAdkObject(
  () => ({ threshold: laxFloat, include_intermediate_responses_in_final: z.boolean().default(false) }),
  'allow',
)

/** `Union[float, BaseCriterion]`: `1`, `"0.5"` (and, as in pydantic, `true`) are bare thresholds. */
export const CriterionValue: z.ZodType<BaseCriterion> = z.preprocess(
  (value) => (!isRecord(value) && laxFloat.safeParse(value).success ? { threshold: value } : value),
  BaseCriterion,
)

/** A custom metric: the function that computes it and what it says about itself. */
export type CustomMetricConfig = {
  code_config: { name: string }
  metric_info?: unknown
  description?: string
}
export const CustomMetricConfig: AdkModel<CustomMetricConfig> = lazyAdkObject(
  () => ({
    code_config: adkObject({ name: z.string() }, 'allow'),
    metric_info: nullish(z.unknown()),
    description: nullish(z.string()),
  }),
  'ignore',
)

/**
 * ADK's EvalConfig. Both casings; unknown top-level keys are ignored.
 * @example EvalConfig.parse({ criteria: { response_match_score: '0.5' } }).criteria.response_match_score.threshold // 0.5
 */
export type EvalConfig = {
  /** Each criterion by metric name, in the config's order; a bare number is a threshold. */
  criteria: Record<string, BaseCriterion>
  custom_metrics?: Record<string, CustomMetricConfig>
  user_simulator_config?: Record<string, unknown>
}
export const EvalConfig: AdkModel<EvalConfig> = lazyAdkObject(
  () => ({
    criteria: z
      .record(z.string(), CriterionValue)
      .nullish()
      .transform((v) => v ?? {}),
    custom_metrics: nullish(z.record(z.string(), CustomMetricConfig)),
    // BaseUserSimulatorConfig has extra="allow"; its typed fields are the simulator's business.
    user_simulator_config: nullish(z.record(z.string(), z.unknown())),
  }),
  'ignore',
)

/**
 * What ADK uses with no config file (or a path that does not exist): `{ criteria: {
 * tool_trajectory_avg_score: 1.0, response_match_score: 0.8 } }` as EvalConfig parses it, written
 * out so that loading this module builds no schema (tested equal to the parse).
 */
export const DEFAULT_EVAL_CONFIG: EvalConfig = {
  criteria: {
    tool_trajectory_avg_score: { threshold: 1.0, include_intermediate_responses_in_final: false },
    response_match_score: { threshold: 0.8, include_intermediate_responses_in_final: false },
  },
}

/** The only criteria AgentEvaluator allows with a flat legacy `.test.json` (spec §1.3). */
export const FLAT_LEGACY_CRITERIA = [
  'tool_trajectory_avg_score',
  'response_evaluation_score',
  'response_match_score',
  'safety_v1',
] as const

/**
 * ADK's EvalMetric: one entry of the config, ready to run. A metric given without a criterion (the
 * web UI sends `{metric_name, threshold}`) gets `BaseCriterion(threshold)`, as ADK's evaluators do.
 */
export const EvalMetric: z.ZodType<EvalMetric> = lazySchema(() =>
  adkObject(
    {
      metric_name: z.string(),
      threshold: laxFloat,
      criterion: nullish(BaseCriterion),
      custom_function_path: nullish(z.string()),
    },
    'forbid',
  ).transform((m): EvalMetric => ({ ...m, criterion: m.criterion ?? BaseCriterion.parse({ threshold: m.threshold }) }))
)
export type EvalMetric = {
  metric_name: string
  /** Null only for metrics ADK reports without configuration (the informational efficiency metrics). */
  threshold: number | null
  criterion: BaseCriterion | null
  custom_function_path?: string
}
/** A metric from a config's `criteria`: it always has a threshold and a criterion. */
export type ConfiguredEvalMetric = EvalMetric & { threshold: number; criterion: BaseCriterion }

export type ParseEvalConfigResult = { ok: true; config: EvalConfig } | ParseFailure

/**
 * Parses an EvalConfig document (already JSON-decoded).
 * @example
 * const r = parseEvalConfig({ criteria: { tool_trajectory_avg_score: 1 } }, { source: 'test_config.json' })
 * if (r.ok) evalMetricsOf(r.config)
 */
export function parseEvalConfig(json: unknown, options: { source?: string } = {}): ParseEvalConfigResult {
  const parsed = EvalConfig.safeParse(json, { reportInput: true })
  if (parsed.success) return { ok: true, config: parsed.data }
  return { ok: false, error: parseErrorFromZod(parsed.error, 'eval config', options.source) }
}

/**
 * ADK's `get_eval_metrics_from_config`: one EvalMetric per criterion, in config order; a custom
 * metric's function path comes from `custom_metrics`.
 * @example evalMetricsOf(DEFAULT_EVAL_CONFIG).map((m) => m.metric_name) // ['tool_trajectory_avg_score', 'response_match_score']
 */
export function evalMetricsOf(config: EvalConfig): ConfiguredEvalMetric[] {
  return Object.entries(config.criteria).map(([metricName, criterion]) => ({
    metric_name: metricName,
    threshold: criterion.threshold,
    criterion,
    custom_function_path: config.custom_metrics?.[metricName]?.code_config.name,
  }))
}

/**
 * ADK's result models (spec §3): EvalMetricResult, EvalMetricResultPerInvocation, EvalCaseResult,
 * EvalSetResult. Files store statuses as 1/2/3; in memory they are EvalStatus names (status.ts), and
 * results-json.ts writes the numbers back. Absent values are `null` here, as they are in the files.
 */
import * as z from 'zod'
import { lazySchema } from './lazy-schema.ts'
import { type CaseStatus, caseStatus, EVAL_STATUS_CODE, type EvalStatus, statusFromCode } from './status.ts'
import { type AdkModel, adkObject, lazyAdkObject, optionalField } from './casing.ts'
import { BaseCriterion, type EvalMetric } from './eval-config.ts'
import { laxFloat } from './eval-set.ts'
import { Invocation } from './invocation.ts'

const orNull = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? null)

/** 1/2/3/4 as in files, or the names as in evalstream's own JSON. */
export const EvalStatusField: z.ZodType<EvalStatus> = lazySchema(() =>
  z
    .union([
      z.literal(1),
      z.literal(2),
      z.literal(3),
      z.literal(4),
      z.enum(['PASSED', 'FAILED', 'NOT_EVALUATED', 'INFORMATIONAL']),
    ])
    .transform((v): EvalStatus => (typeof v === 'number' ? statusFromCode(v) : v))
)

/** A judge's verdict on one rubric. */
export type RubricScore = {
  rubric_id: string
  rationale: string | null
  score: number | null
}
export const RubricScore: AdkModel<RubricScore> = lazyAdkObject(
  () => ({ rubric_id: z.string(), rationale: orNull(z.string()), score: orNull(laxFloat) }),
  'forbid',
)

/** The fields of ADK's TokenUsageDetails, in the order ADK declares them (the schema below has them all). */
export const TOKEN_USAGE_FIELDS = [
  'total_tokens',
  'input_tokens',
  'prompt_tokens',
  'cached_tokens',
  'tool_use_tokens',
  'output_tokens',
  'candidates_tokens',
  'reasoning_tokens',
] as const

/**
 * Newer ADK's breakdown behind a token_usage_v1 score (null: the count was not reported). Present in
 * `details` only for that metric: ADK 2.0's details have no such field and reject unknown keys.
 */
export type TokenUsageDetails = {
  total_tokens: number | null
  input_tokens: number | null
  prompt_tokens: number | null
  cached_tokens: number | null
  tool_use_tokens: number | null
  output_tokens: number | null
  candidates_tokens: number | null
  reasoning_tokens: number | null
}
export const TokenUsageDetails: AdkModel<TokenUsageDetails> = lazyAdkObject(
  () => ({
    total_tokens: orNull(laxFloat),
    input_tokens: orNull(laxFloat),
    prompt_tokens: orNull(laxFloat),
    cached_tokens: orNull(laxFloat),
    tool_use_tokens: orNull(laxFloat),
    output_tokens: orNull(laxFloat),
    candidates_tokens: orNull(laxFloat),
    reasoning_tokens: orNull(laxFloat),
  }),
  'forbid',
)

/** What backs a metric's score: rubric verdicts, token counts. */
export type EvalMetricResultDetails = {
  rubric_scores: RubricScore[] | null
  token_usage_details?: TokenUsageDetails
}
export const EvalMetricResultDetails: AdkModel<EvalMetricResultDetails> = lazyAdkObject(
  () => ({ rubric_scores: orNull(z.array(RubricScore)), token_usage_details: optionalField(TokenUsageDetails) }),
  'forbid',
)

/** The metric as a result echoes it (ADK's EvalMetric, absent values as null). */
export type EvalMetricEcho = {
  metric_name: string
  threshold: number | null
  criterion: BaseCriterion | null
  custom_function_path: string | null
}

const evalMetricShape = () => ({
  metric_name: z.string(),
  threshold: orNull(laxFloat),
  criterion: orNull(BaseCriterion),
  custom_function_path: orNull(z.string()),
})

/** One metric's result: the metric, its score and status. */
export type EvalMetricResult = EvalMetricEcho & {
  score: number | null
  eval_status: EvalStatus
  details: EvalMetricResultDetails
}
export const EvalMetricResult: AdkModel<EvalMetricResult> = lazyAdkObject(
  () => ({
    ...evalMetricShape(),
    score: orNull(laxFloat),
    eval_status: EvalStatusField,
    details: EvalMetricResultDetails.nullish().transform((v) => v ?? { rubric_scores: null }),
  }),
  'forbid',
)

/** Every metric's result for one invocation, beside the invocation and the expected one. */
export type EvalMetricResultPerInvocation = {
  actual_invocation: Invocation
  expected_invocation: Invocation | null
  eval_metric_results: EvalMetricResult[]
}
export const EvalMetricResultPerInvocation: AdkModel<EvalMetricResultPerInvocation> = lazyAdkObject(
  () => ({
    actual_invocation: Invocation,
    expected_invocation: orNull(Invocation),
    eval_metric_results: z.array(EvalMetricResult).default([]),
  }),
  'forbid',
)

/** The deprecated `[EvalMetric, EvalMetricResult]` pairs; ADK writes null there. */
const LegacyMetricPair = lazySchema(() => z.tuple([adkObject(evalMetricShape(), 'forbid'), EvalMetricResult]))

/** One eval case's result: its status, every metric overall and per invocation. */
export type EvalCaseResult = {
  eval_set_file: string | null
  eval_set_id: string
  eval_id: string
  final_eval_status: CaseStatus
  /** The deprecated `[EvalMetric, EvalMetricResult]` pairs; ADK writes null there. */
  eval_metric_results: [EvalMetricEcho, EvalMetricResult][] | null
  overall_eval_metric_results: EvalMetricResult[]
  eval_metric_result_per_invocation: EvalMetricResultPerInvocation[]
  session_id: string
  /** The whole inference Session (events included), kept as it is. */
  session_details: NonNullable<unknown> | null
  user_id: string | null
}
export const EvalCaseResult: AdkModel<EvalCaseResult> = lazyAdkObject(
  () => ({
    eval_set_file: orNull(z.string()),
    eval_set_id: z.string().default(''),
    eval_id: z.string(),
    // A case is never INFORMATIONAL (only metrics are); a file saying so is read as NOT_EVALUATED.
    final_eval_status: EvalStatusField.transform((s): CaseStatus => (s === 'INFORMATIONAL' ? 'NOT_EVALUATED' : s)),
    eval_metric_results: orNull(z.array(LegacyMetricPair)),
    overall_eval_metric_results: z.array(EvalMetricResult).default([]),
    eval_metric_result_per_invocation: z.array(EvalMetricResultPerInvocation).default([]),
    session_id: z.string(),
    // The whole inference Session (events included); kept as it is, not typed.
    session_details: orNull(z.unknown()),
    user_id: orNull(z.string()),
  }),
  'ignore',
)

/** One run of an eval set: every case's result. */
export type EvalSetResult = {
  eval_set_result_id: string
  eval_set_result_name: string | null
  eval_set_id: string
  eval_case_results: EvalCaseResult[]
  creation_timestamp: number
}
export const EvalSetResult: AdkModel<EvalSetResult> = lazyAdkObject(
  () => ({
    eval_set_result_id: z.string(),
    eval_set_result_name: orNull(z.string()),
    eval_set_id: z.string(),
    eval_case_results: z.array(EvalCaseResult).default([]),
    creation_timestamp: laxFloat.nullish().transform((v) => v ?? 0),
  }),
  'ignore',
)

/**
 * One metric's result, echoing the metric as ADK does.
 * @example evalMetricResult(metric, { score: 0.5, status: 'PASSED' })
 */
export function evalMetricResult(
  metric: EvalMetric,
  result: {
    score: number | null
    status: EvalStatus
    rubricScores?: RubricScore[] | null
    tokenUsageDetails?: TokenUsageDetails | null
  },
): EvalMetricResult {
  return {
    metric_name: metric.metric_name,
    threshold: metric.threshold ?? null,
    criterion: metric.criterion ?? null,
    custom_function_path: metric.custom_function_path ?? null,
    score: result.score,
    eval_status: result.status,
    details: {
      rubric_scores: result.rubricScores ?? null,
      ...(result.tokenUsageDetails ? { token_usage_details: result.tokenUsageDetails } : {}),
    },
  }
}

export type EvalCaseResultInput = {
  evalSetId: string
  evalId: string
  overall: EvalMetricResult[]
  perInvocation: EvalMetricResultPerInvocation[]
  sessionId: string
  userId?: string | null
  sessionDetails?: unknown
  /** Defaults to ADK's rule over the overall statuses (first FAILED, else any PASSED, else NOT_EVALUATED). */
  finalEvalStatus?: CaseStatus
}

/**
 * An EvalCaseResult as LocalEvalService builds it (eval_set_file mirrors eval_set_id).
 * @example evalCaseResult({ evalSetId: 's', evalId: 'c', overall: [], perInvocation: [], sessionId: 'x' })
 */
export function evalCaseResult(input: EvalCaseResultInput): EvalCaseResult {
  return {
    eval_set_file: input.evalSetId,
    eval_set_id: input.evalSetId,
    eval_id: input.evalId,
    final_eval_status: input.finalEvalStatus ?? caseStatus(input.overall.map((m) => m.eval_status)),
    eval_metric_results: null,
    overall_eval_metric_results: input.overall,
    eval_metric_result_per_invocation: input.perInvocation,
    session_id: input.sessionId,
    session_details: input.sessionDetails ?? null,
    user_id: input.userId ?? null,
  }
}

/** Python's `str(float)` for a unix time: `1795312257.0`, `1795312257.9031253`. */
export function pythonTimestamp(seconds: number): string {
  return Number.isInteger(seconds) ? `${seconds}.0` : String(seconds)
}

/**
 * An EvalSetResult with ADK's id `<app>_<evalset>_<unix ts>` (name: the id with "/" -> "_").
 * The timestamp (float seconds) is passed in: core code reads no clock.
 * @example evalSetResult({ appName: 'weather_agent', evalSetId: 'weather_set', caseResults: [], timestamp: 1.5 }).eval_set_result_id
 * // 'weather_agent_weather_set_1.5'
 */
export function evalSetResult(input: {
  appName: string
  evalSetId: string
  caseResults: EvalCaseResult[]
  timestamp: number
}): EvalSetResult {
  const id = `${input.appName}_${input.evalSetId}_${pythonTimestamp(input.timestamp)}`
  return {
    eval_set_result_id: id,
    eval_set_result_name: id.replaceAll('/', '_'),
    eval_set_id: input.evalSetId,
    eval_case_results: input.caseResults,
    creation_timestamp: input.timestamp,
  }
}

/** The numeric status a file stores. */
export function statusCode(status: EvalStatus): number {
  return EVAL_STATUS_CODE[status]
}

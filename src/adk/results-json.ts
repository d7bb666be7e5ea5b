/**
 * Result files byte-for-byte as ADK's LocalEvalSetResultsManager writes them
 * (`EvalSetResult.model_dump_json(indent=2)`), and a reader for them.
 *
 * Field orders are pydantic's declaration orders in ADK v2.0.0 and in the google-genai release it
 * was run with (see adk-fixtures/generated__weather_agent_weather_set.evalset_result.json): every
 * genai Part field is written, null included. Limits: values typed `Any`/dict in ADK (tool args,
 * responses, session state, session_details, criterion extras) are written from JavaScript numbers,
 * so a whole float there (`21.0`) comes out as `21`; nested genai objects evalstream does not model
 * (inline_data, file_data, ...) are written with the keys they were read with.
 */
import { parseErrorFromZod, type ParseFailure, simpleParseError } from './parse-error.ts'
import type { JsonSpec } from './pydantic-json.ts'
import { writePydanticJson } from './pydantic-json.ts'
import { pydanticJsonValue } from './pydantic-value.ts'
import { EvalCaseResult, EvalSetResult, TOKEN_USAGE_FIELDS } from './results.ts'

const f = (fields: [string, JsonSpec][]): JsonSpec => ({ fields })
const any = (...names: string[]): [string, JsonSpec][] => names.map((n) => [n, 'any'])

const FunctionCallSpec = f([...any('id', 'args', 'name', 'partial_args', 'will_continue')])
const FunctionResponseSpec = f([...any('will_continue', 'scheduling', 'parts', 'id', 'name', 'response')])
const PartSpec = f([
  ...any('media_resolution', 'code_execution_result', 'executable_code', 'file_data'),
  ['function_call', FunctionCallSpec],
  ['function_response', FunctionResponseSpec],
  ...any('inline_data', 'text', 'thought', 'thought_signature', 'video_metadata', 'tool_call', 'tool_response'),
  ...any('part_metadata', 'audio_transcription', 'media_processing', 'speech_metadata'),
])
const ContentSpec = f([['parts', { array: PartSpec }], ...any('role')])

const IntermediateDataSpec = f([
  ['tool_uses', { array: FunctionCallSpec }],
  ['tool_responses', { array: FunctionResponseSpec }],
  ['intermediate_responses', { array: { tuple: ['any', { array: PartSpec }] } }],
])
const InvocationEventsSpec = f([['invocation_events', { array: f([...any('author'), ['content', ContentSpec]]) }]])
const RubricSpec = f([...any('rubric_id'), ['rubric_content', f(any('text_property'))], ...any('description', 'type')])
const AppDetailsSpec = f([['agent_details', { record: f(any('name', 'instructions', 'tool_declarations')) }]])

const InvocationSpec = f([
  ...any('invocation_id'),
  ['user_content', ContentSpec],
  ['final_response', ContentSpec],
  ['intermediate_data', { pick: (v) => ('invocation_events' in v ? InvocationEventsSpec : IntermediateDataSpec) }],
  ['creation_timestamp', 'float'],
  ['rubrics', { array: RubricSpec }],
  ['app_details', AppDetailsSpec],
])

// A criterion is dumped as BaseCriterion: declared fields, then the extras as they were given.
const CriterionSpec = f([['threshold', 'float'], ...any('include_intermediate_responses_in_final')])
const evalMetricFields: [string, JsonSpec][] = [
  ...any('metric_name'),
  ['threshold', 'float'],
  ['criterion', CriterionSpec],
  ...any('custom_function_path'),
]
const RubricScoreSpec = f([...any('rubric_id', 'rationale'), ['score', 'float']])
const DetailsSpec = f([['rubric_scores', { array: RubricScoreSpec }]])
// Written only for token_usage_v1 (newer ADK writes it, null, on every metric; ADK 2.0 rejects it).
const TokenUsageDetailsSpec = f(TOKEN_USAGE_FIELDS.map((name): [string, JsonSpec] => [name, 'float']))
const DetailsWithTokensSpec = f([
  ['rubric_scores', { array: RubricScoreSpec }],
  ['token_usage_details', TokenUsageDetailsSpec],
])
const EvalMetricResultSpec = f([
  ...evalMetricFields,
  ['score', 'float'],
  ['eval_status', 'status'],
  ['details', { pick: (v) => ('token_usage_details' in v ? DetailsWithTokensSpec : DetailsSpec) }],
])
const PerInvocationSpec = f([
  ['actual_invocation', InvocationSpec],
  ['expected_invocation', InvocationSpec],
  ['eval_metric_results', { array: EvalMetricResultSpec }],
])
const EvalCaseResultSpec = f([
  ...any('eval_set_file', 'eval_set_id', 'eval_id'),
  ['final_eval_status', 'status'],
  ['eval_metric_results', { array: { tuple: [f(evalMetricFields), EvalMetricResultSpec] } }],
  ['overall_eval_metric_results', { array: EvalMetricResultSpec }],
  ['eval_metric_result_per_invocation', { array: PerInvocationSpec }],
  ...any('session_id', 'session_details', 'user_id'),
])
const EvalSetResultSpec = f([
  ...any('eval_set_result_id', 'eval_set_result_name', 'eval_set_id'),
  ['eval_case_results', { array: EvalCaseResultSpec }],
  ['creation_timestamp', 'float'],
])

/**
 * The text of an `.evalset_result.json` file, exactly as ADK writes it.
 * @example await writeFile(`${result.eval_set_result_name}.evalset_result.json`, evalSetResultJson(result))
 */
export function evalSetResultJson(result: EvalSetResult): string {
  return writePydanticJson(result, EvalSetResultSpec)
}

/** One EvalCaseResult as `model_dump_json(indent=2)` writes it (the web UI's per-case view). */
export function evalCaseResultJson(result: EvalCaseResult): string {
  return writePydanticJson(result, EvalCaseResultSpec)
}

/**
 * `JSON.parse(evalCaseResultJson(result))`, built directly (about 10x faster for a long session).
 * @example evalCaseResultValue(result).final_eval_status // 1
 */
export function evalCaseResultValue(result: EvalCaseResult): Record<string, unknown> {
  return pydanticJsonValue(result, EvalCaseResultSpec) as Record<string, unknown>
}

export type ReadEvalSetResultResult = { ok: true; result: EvalSetResult } | ParseFailure

/**
 * Reads an `.evalset_result.json` file's text. Older ADK versions wrote the JSON document as a JSON
 * string (double-encoded); that is accepted too.
 * @example const r = readEvalSetResult(text, { source: path }); if (r.ok) r.result.eval_case_results
 */
export function readEvalSetResult(text: string, options: { source?: string } = {}): ReadEvalSetResultResult {
  const what = 'eval set result'
  let json: unknown
  try {
    json = JSON.parse(text)
    if (typeof json === 'string') json = JSON.parse(json)
  } catch (error) {
    return { ok: false, error: simpleParseError(what, options.source, `not valid JSON (${(error as Error).message})`) }
  }
  const parsed = EvalSetResult.safeParse(json, { reportInput: true })
  if (parsed.success) return { ok: true, result: parsed.data }
  return { ok: false, error: parseErrorFromZod(parsed.error, what, options.source) }
}

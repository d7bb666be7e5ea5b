/**
 * A decided result as the OpenTelemetry GenAI semantic conventions' `gen_ai.evaluation.result`
 * event: an OTLP log record (events are log records with an event name) in OTLP/JSON encoding.
 *
 * Attributes: `gen_ai.evaluation.name` (the criterion, `evalstream.case` for the case result),
 * `gen_ai.evaluation.score.value` (when there is a score), `gen_ai.evaluation.score.label`
 * (`passed`, `failed` or `not_evaluated`: ADK's status, low cardinality as the convention asks),
 * `gen_ai.evaluation.explanation` (the judge's reasoning, the reason there is no score, or how the
 * score compares with its threshold), `gen_ai.response.id` when the result names the response it
 * scored, and evalstream's own `evalstream.*` attributes to find the session, invocation, tenant and app.
 */
import { isRecord } from '../adk/json.ts'
import type { CriterionResultData, ResultEvent } from '../engine/types.ts'
import type { FedResult } from '../session/result-feed.ts'
import type { TraceLinks, TraceMark } from '../otlp/trace-mark.ts'

export const GEN_AI_EVALUATION_RESULT = 'gen_ai.evaluation.result'
/** gen_ai.evaluation.name of the case result (the verdict over every criterion). */
export const CASE_EVALUATION_NAME = 'evalstream.case'

/** OTLP/JSON AnyValue: 64-bit integers travel as strings. */
export type OtlpValue = { stringValue: string } | { doubleValue: number } | { intValue: string } | { boolValue: boolean }
export type OtlpAttribute = { key: string; value: OtlpValue }
/** The `gen_ai.evaluation.result` log record this project sends (the inbound record a receiver decodes is `OtlpLogRecord` of src/otlp/model.ts). */
export type EvaluationLogRecord = {
  timeUnixNano: string
  observedTimeUnixNano: string
  severityNumber: number
  severityText: string
  eventName: string
  attributes: OtlpAttribute[]
  /** The scored span's trace and span (hex), for results of sessions born from the agent's own traces. */
  traceId?: string
  spanId?: string
}

/** A result that is an evaluation: a criterion's verdict or the case's. */
export type DecidedResult = FedResult & { event: Extract<ResultEvent, { type: 'criterion.result' | 'case.result' }> }

/** Only final verdicts are events: progress, invocation starts and ingest errors are not evaluations. */
export function isDecided(result: FedResult): result is DecidedResult {
  return result.event.type === 'criterion.result' || result.event.type === 'case.result'
}

const LABEL: Record<string, string> = { PASSED: 'passed', FAILED: 'failed', NOT_EVALUATED: 'not_evaluated', INFORMATIONAL: 'informational' }
// A file-shaped case result stores statuses as numbers (1 passed, 2 failed, 3 not evaluated, 4 informational).
const CODE: Record<number, string> = { 1: 'PASSED', 2: 'FAILED', 3: 'NOT_EVALUATED', 4: 'INFORMATIONAL' }
const SEVERITY = { INFO: 9, WARN: 13 }

/** PASSED, FAILED, NOT_EVALUATED or INFORMATIONAL from a status name or ADK's number. */
export function statusName(value: unknown): string {
  if (typeof value === 'number') return CODE[value] ?? 'NOT_EVALUATED'
  return typeof value === 'string' && value in LABEL ? value : 'NOT_EVALUATED'
}

/**
 * @example
 * const record = evaluationRecord(fed, { maxAttributeChars: 4096 })
 * record.eventName // 'gen_ai.evaluation.result'
 */
export function evaluationRecord(result: DecidedResult, options: { maxAttributeChars: number; links?: TraceLinks }): EvaluationLogRecord {
  const { event } = result
  const metric = event.type === 'criterion.result' ? event.data : undefined
  const caseFile = event.type === 'case.result' ? event.data : undefined
  const attrs: OtlpAttribute[] = []
  // Absent values (no score, no threshold, no revision) are left out, never written as empty.
  const str = (key: string, value: unknown) => {
    if (typeof value === 'string' && value !== '') attrs.push({ key, value: { stringValue: value.slice(0, options.maxAttributeChars) } })
  }
  const int = (key: string, value: number | undefined) => {
    if (value !== undefined && Number.isSafeInteger(value)) attrs.push({ key, value: { intValue: String(value) } })
  }
  const dbl = (key: string, value: number | null | undefined) => {
    if (typeof value === 'number' && Number.isFinite(value)) attrs.push({ key, value: { doubleValue: value } })
  }
  const status = caseFile ? statusName(caseFile.final_eval_status) : statusName(metric?.eval_status)
  str('gen_ai.evaluation.name', metric ? metric.metric_name : CASE_EVALUATION_NAME)
  if (metric) dbl('gen_ai.evaluation.score.value', metric.score)
  str('gen_ai.evaluation.score.label', LABEL[status])
  str('gen_ai.evaluation.explanation', caseFile ? caseExplanation(caseFile) : metric && criterionExplanation(metric))
  str('gen_ai.response.id', event.data.response_id)
  str('evalstream.session.id', result.sessionId)
  str('evalstream.tenant', result.tenant)
  str('evalstream.app.name', result.appName)
  str('evalstream.invocation.id', metric?.invocation_id)
  int('evalstream.invocation.index', metric?.invocation_index)
  dbl('evalstream.evaluation.threshold', metric?.threshold)
  int('evalstream.evaluation.revision', metric?.revision)
  str('evalstream.eval.id', caseFile?.eval_id)
  str('evalstream.result.key', result.event.key)
  int('evalstream.result.seq', result.event.seq)
  const nanos = `${BigInt(Math.round(result.atMs)) * 1_000_000n}`
  const severity = status === 'FAILED' ? 'WARN' : 'INFO'
  return {
    timeUnixNano: nanos,
    observedTimeUnixNano: nanos,
    severityNumber: SEVERITY[severity],
    severityText: severity,
    eventName: GEN_AI_EVALUATION_RESULT,
    attributes: attrs,
    ...(options.links ? scoredSpan(result, options.links) : {}),
  }
}

/**
 * Where in the agent's trace a verdict belongs, for sessions fed from OTLP: the invocation's root
 * span, except a failed tool trajectory, which goes to the `execute_tool` span of the first call
 * that did not fit the expected trajectory; the case result goes to the last invocation's root.
 */
function scoredSpan(result: DecidedResult, links: TraceLinks): { traceId?: string; spanId?: string } {
  const { event } = result
  const mark: TraceMark | undefined = event.type === 'case.result'
    ? links.last(result.sessionId)
    : links.lookup(result.sessionId, event.data.invocation_id)
  if (!mark) return {}
  let spanId = mark.root_span_id
  if (event.type === 'criterion.result' && event.data.metric_name === 'tool_trajectory_avg_score' && event.data.score === 0) {
    const extra = event.data.details?.extra
    const first = Array.isArray(extra) && isRecord(extra[0]) ? extra[0].actual_index : undefined
    const toolSpan = typeof first === 'number' ? mark.tool_span_ids[first] : undefined
    if (toolSpan) spanId = toolSpan
  }
  return { traceId: mark.trace_id, ...(spanId ? { spanId } : {}) }
}

/** The judge's own words when it gave some, else why there is no score, else score vs threshold. */
export function criterionExplanation(data: Partial<CriterionResultData>): string | undefined {
  // The details are the criterion's own (a judge's free text among them): read with care.
  const details = data.details ?? {}
  for (const said of [details.reasoning, details.rationale, data.reason]) {
    if (typeof said === 'string' && said.trim() !== '') return said
  }
  if (typeof data.score === 'number' && typeof data.threshold === 'number') {
    return `score ${data.score} ${data.score >= data.threshold ? '>=' : '<'} threshold ${data.threshold}`
  }
  return undefined
}

/** Each metric's verdict, in config order: `tool_trajectory_avg_score: FAILED (0 < 1); …`. */
function caseExplanation(data: Record<string, unknown>): string | undefined {
  const metrics = Array.isArray(data.overall_eval_metric_results) ? data.overall_eval_metric_results : []
  const parts = metrics.filter(isRecord).map((m) => {
    const status = statusName(m.eval_status)
    const score = typeof m.score === 'number' && typeof m.threshold === 'number'
      ? ` (${m.score} ${m.score >= m.threshold ? '>=' : '<'} ${m.threshold})`
      : ''
    return `${String(m.metric_name)}: ${status}${score}`
  })
  return parts.length > 0 ? parts.join('; ') : undefined
}

/**
 * The ExportLogsServiceRequest body for a batch, in OTLP/JSON.
 * @example JSON.stringify(exportRequest([record], { 'service.name': 'evalstream' }))
 */
export function exportRequest(records: EvaluationLogRecord[], resource: Record<string, string>) {
  const resourceAttributes: Record<string, string> = { 'telemetry.sdk.name': 'evalstream', 'telemetry.sdk.language': 'webjs', ...resource }
  return {
    resourceLogs: [
      {
        resource: { attributes: Object.entries(resourceAttributes).map(([key, v]) => ({ key, value: { stringValue: v } })) },
        scopeLogs: [{ scope: { name: 'evalstream' }, logRecords: records }],
      },
    ],
  }
}

/**
 * A recording of OTLP JSON, as the OpenTelemetry Collector's file exporter writes it: one
 * ExportTraceServiceRequest or ExportLogsServiceRequest per line (a single, possibly
 * pretty-printed, request is read too); or a trace store's export (Jaeger JSON, Tempo's
 * trace-by-id JSON: trace-stores.ts), told apart by shape. A bad line or span is an issue, named
 * by its path in the file; the rest is kept.
 */
import { findJsonBoundsViolation } from '../adk/json-bounds.ts'
import { isRecord } from '../adk/json.ts'
import { decodeLogsJson, decodeTracesJson } from './decode-json.ts'
import type { OtlpLimits } from './limits.ts'
import { type OtlpLogRecord, OtlpRequestError, type OtlpSpan } from './model.ts'
import { convertTraceStoreExport, originalPath, quoteNanos, traceStoreFormatOf } from './trace-stores.ts'

/** Levels of a trace store export above an attribute's value (data, spans, tags, ... or batches, scopeSpans, spans, attributes, value). */
const TRACE_STORE_STRUCTURE_DEPTH = 12

const OTLP_START = /^\s*\{\s*"(resourceSpans|resource_spans|resourceLogs|resource_logs)"\s*:/

/**
 * Whether a file's text is an OTLP JSON export rather than ADK events.
 * @example looksLikeOtlpJson('{"resourceSpans":[]}') // true
 */
export function looksLikeOtlpJson(text: string): boolean {
  return OTLP_START.test(text.replace(/^\uFEFF/, '').slice(0, 200))
}

export type OtlpFileIssue = { line: number; where?: string; message: string }
export type DecodedOtlpFile = {
  spans: OtlpSpan[]
  logs: OtlpLogRecord[]
  issues: OtlpFileIssue[]
  rejectedCount: number
  /** What the file was: OTLP/JSON, or a trace store's export converted to it. */
  format: 'otlp' | 'jaeger' | 'tempo'
}

function decodeRequest(text: string, line: number, limits: OtlpLimits, out: DecodedOtlpFile): void {
  const isLogs = /^\s*\{\s*"resource_?[lL]ogs"/.test(text)
  try {
    const decoded = isLogs ? decodeLogsJson(text, limits) : decodeTracesJson(text, limits)
    if ('spans' in decoded) out.spans.push(...decoded.spans)
    else out.logs.push(...decoded.logs)
    out.rejectedCount += decoded.rejectedCount
    for (const r of decoded.rejected) out.issues.push({ line, where: r.where, message: r.message })
  } catch (error) {
    if (!(error instanceof OtlpRequestError)) throw error
    out.issues.push({ line, message: error.message })
  }
}

/**
 * @example decodeOtlpFile('{"resourceSpans":[…]}\n{"resourceLogs":[…]}\n', DEFAULT_OTLP_LIMITS).spans.length
 */
export function decodeOtlpFile(text: string, limits: OtlpLimits): DecodedOtlpFile {
  const out: DecodedOtlpFile = { spans: [], logs: [], issues: [], rejectedCount: 0, format: 'otlp' }
  const body = text.replace(/^\uFEFF/, '')
  let whole: unknown
  try {
    whole = JSON.parse(body)
  } catch {
    whole = undefined // several requests, one per line
  }
  const format = traceStoreFormatOf(whole)
  if (format === 'tempo') whole = JSON.parse(quoteNanos(body))
  if (format) {
    // Converting copies values (and serialises some): the structure is bounded first, without recursion.
    const maxJsonDepth = TRACE_STORE_STRUCTURE_DEPTH + 4 * limits.maxValueDepth
    const deep = findJsonBoundsViolation(whole, { maxJsonDepth, maxStringLength: limits.maxDecompressedBytes })
    if (deep) {
      out.issues.push({
        line: 1,
        where: deep.path,
        message: `the ${format} export nests deeper than ${maxJsonDepth} levels (EVALSTREAM_OTLP_MAX_VALUE_DEPTH)`,
      })
      return out
    }
  }
  const converted = convertTraceStoreExport(whole)
  if (converted) {
    decodeRequest(JSON.stringify(converted.request), 1, limits, out)
    out.format = converted.format
    for (const issue of out.issues) if (issue.where) issue.where = originalPath(issue.where, converted)
    return out
  }
  if (isRecord(whole)) {
    decodeRequest(body, 1, limits, out)
    return out
  }
  body.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return
    if (raw.length > limits.maxDecompressedBytes) {
      out.issues.push({
        line: i + 1,
        message: `the line is over EVALSTREAM_OTLP_MAX_DECOMPRESSED_BYTES=${limits.maxDecompressedBytes} bytes`,
      })
    } else decodeRequest(raw, i + 1, limits, out)
  })
  return out
}

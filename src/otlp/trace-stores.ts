/**
 * Recordings exported from trace stores, as OTLP/JSON requests the OTLP decoder reads: Jaeger's
 * query API JSON (`{data: [{traceID, spans: [{spanID, operationName, references, startTime,
 * duration, tags, processID}], processes}]}`, times in microseconds, tags typed `string` / `int64` /
 * `float64` / `bool` / `binary`, the OpenTelemetry scope, kind and status as `otel.*` and
 * `span.kind` tags) and Grafana Tempo's trace-by-id JSON (`{batches: [{resource,
 * instrumentationLibrarySpans | scopeSpans}]}`: OTLP/JSON of the older proto, kind names, nanos as
 * JSON numbers). Detected by shape; each item keeps the path it had in the file, so a rejection names
 * `data[0].spans[3]` rather than a path of the converted request.
 */
import { isRecord } from '../adk/json.ts'

export type TraceStoreFormat = 'jaeger' | 'tempo'

/** The converted request, and per `resourceSpans[i]` the path of what it came from in the file. */
export type ConvertedRecording = { format: TraceStoreFormat; request: Record<string, unknown>; origins: string[] }

const START = /^\s*\{\s*"(data|batches|traceID)"\s*:/

/**
 * Whether a file's text starts as a Jaeger or Tempo export (the first key decides; no parsing).
 * @example looksLikeTraceStoreExport('{"data": [{"traceID": "…"') // true
 */
export function looksLikeTraceStoreExport(text: string): boolean {
  return START.test(text.replace(/^\uFEFF/, '').slice(0, 200))
}

/**
 * Tempo writes nanosecond times as JSON numbers, which lose digits past 2^53 when parsed: they are
 * quoted before parsing, so times keep every digit (as an OTLP exporter's strings do).
 */
export function quoteNanos(text: string): string {
  return text.replace(/("(?:startTimeUnixNano|endTimeUnixNano|timeUnixNano|observedTimeUnixNano)"\s*:\s*)(\d+)/g, '$1"$2"')
}

/**
 * @example traceStoreFormatOf({ batches: [] }) // 'tempo'
 */
export function traceStoreFormatOf(parsed: unknown): TraceStoreFormat | undefined {
  if (!isRecord(parsed)) return undefined
  if (Array.isArray(parsed.batches)) return 'tempo'
  if (Array.isArray(parsed.data) || (typeof parsed.traceID === 'string' && Array.isArray(parsed.spans))) return 'jaeger'
  return undefined
}

/** A file parsed from JSON, converted; undefined when it is neither export. */
export function convertTraceStoreExport(parsed: unknown): ConvertedRecording | undefined {
  const format = traceStoreFormatOf(parsed)
  if (format === 'tempo') return tempoToOtlp(parsed as Record<string, unknown>)
  if (format === 'jaeger') return jaegerToOtlp(parsed as Record<string, unknown>)
  return undefined
}

/** Tempo's batches are OTLP's resourceSpans under older names; the decoder ignores `kind`. */
function tempoToOtlp(parsed: Record<string, unknown>): ConvertedRecording {
  const batches = parsed.batches as unknown[]
  const resourceSpans = batches.map((batch) => {
    if (!isRecord(batch)) return batch
    const scoped = Array.isArray(batch.scopeSpans)
      ? batch.scopeSpans
      : Array.isArray(batch.instrumentationLibrarySpans)
      ? batch.instrumentationLibrarySpans
      : []
    return {
      resource: batch.resource,
      scopeSpans: scoped.map((s: unknown) => (isRecord(s) ? { scope: s.scope ?? s.instrumentationLibrary, spans: s.spans } : s)),
    }
  })
  return { format: 'tempo', request: { resourceSpans }, origins: batches.map((_, i) => `batches[${i}]`) }
}

type JaegerTag = { key?: unknown; type?: unknown; value?: unknown }

/** A Jaeger tag as an OTLP AnyValue; an int64 keeps its digits as a string. */
function anyValue(tag: JaegerTag): Record<string, unknown> {
  const value = tag.value
  switch (tag.type) {
    case 'bool':
      return { boolValue: value === true || value === 'true' }
    case 'int64':
      return { intValue: String(value) }
    case 'float64':
      return { doubleValue: typeof value === 'number' ? value : Number(value) }
    case 'binary':
      return { bytesValue: String(value) }
    default:
      return { stringValue: typeof value === 'string' ? value : JSON.stringify(value ?? null) }
  }
}

/** Tags the OpenTelemetry-to-Jaeger mapping made from span fields, not from attributes. */
const SPAN_FIELDS = new Set([
  'otel.scope.name',
  'otel.scope.version',
  'otel.library.name',
  'otel.library.version',
  'otel.status_code',
  'otel.status_description',
  'span.kind',
  'internal.span.format',
])

const microsToNanos = (micros: unknown): string => {
  const n = typeof micros === 'number' ? micros : Number(micros)
  return Number.isSafeInteger(n) && n >= 0 ? `${n}000` : String(micros)
}
const tagsOf = (raw: unknown): JaegerTag[] => (Array.isArray(raw) ? raw.filter(isRecord) as JaegerTag[] : [])

function jaegerSpan(
  span: Record<string, unknown>,
  traceId: unknown,
): { request: Record<string, unknown>; processId: unknown; scope: Record<string, unknown> } {
  const tags = tagsOf(span.tags)
  const tag = (key: string) => tags.find((t) => t.key === key)?.value
  const parent = (Array.isArray(span.references) ? span.references : []).find((r) => isRecord(r) && r.refType === 'CHILD_OF') ??
    (Array.isArray(span.references) ? span.references.find(isRecord) : undefined)
  const start = typeof span.startTime === 'number' ? span.startTime : Number(span.startTime)
  const duration = typeof span.duration === 'number' ? span.duration : Number(span.duration)
  const status = tag('otel.status_code')
  const events = (Array.isArray(span.logs) ? span.logs : []).filter(isRecord).map((log) => {
    const fields = tagsOf(log.fields)
    const name = fields.find((f) => f.key === 'event')?.value
    return {
      timeUnixNano: microsToNanos(log.timestamp),
      name: typeof name === 'string' ? name : '',
      attributes: fields.filter((f) => f.key !== 'event' && typeof f.key === 'string').map((f) => ({ key: f.key, value: anyValue(f) })),
    }
  })
  return {
    processId: span.processID,
    scope: {
      name: tag('otel.scope.name') ?? tag('otel.library.name') ?? '',
      version: tag('otel.scope.version') ?? tag('otel.library.version') ?? '',
    },
    request: {
      traceId: span.traceID ?? traceId,
      spanId: span.spanID,
      ...(isRecord(parent) ? { parentSpanId: parent.spanID } : {}),
      name: span.operationName,
      startTimeUnixNano: microsToNanos(start),
      endTimeUnixNano: Number.isFinite(start + duration) ? microsToNanos(start + duration) : microsToNanos(Number.NaN),
      attributes: tags.filter((t) => typeof t.key === 'string' && !SPAN_FIELDS.has(t.key)).map((t) => ({ key: t.key, value: anyValue(t) })),
      status: status === 'ERROR' ? { code: 2, message: String(tag('otel.status_description') ?? '') } : status === 'OK' ? { code: 1 } : {},
      ...(events.length > 0 ? { events } : {}),
    },
  }
}

/** Each Jaeger span becomes its own resourceSpans entry (its process as the resource), so its path maps back one to one. */
function jaegerToOtlp(parsed: Record<string, unknown>): ConvertedRecording {
  const traces = Array.isArray(parsed.data) ? parsed.data : [parsed]
  const resourceSpans: unknown[] = []
  const origins: string[] = []
  traces.forEach((trace, t) => {
    const at = Array.isArray(parsed.data) ? `data[${t}]` : '$'
    if (!isRecord(trace) || !Array.isArray(trace.spans)) {
      resourceSpans.push({ scopeSpans: [{ spans: [null] }] })
      origins.push(at)
      return
    }
    const processes = isRecord(trace.processes) ? trace.processes : {}
    trace.spans.forEach((raw, s) => {
      origins.push(`${at}.spans[${s}]`)
      if (!isRecord(raw)) {
        resourceSpans.push({ scopeSpans: [{ spans: [raw] }] })
        return
      }
      const { request, processId, scope } = jaegerSpan(raw, trace.traceID)
      const jaegerProcess = typeof processId === 'string' && isRecord(processes[processId])
        ? processes[processId]
        : (isRecord(raw.process) ? raw.process : {})
      const resource = [
        ...(typeof jaegerProcess.serviceName === 'string'
          ? [{ key: 'service.name', value: { stringValue: jaegerProcess.serviceName } }]
          : []),
        ...tagsOf(jaegerProcess.tags).filter((t) => typeof t.key === 'string').map((t) => ({ key: t.key, value: anyValue(t) })),
      ]
      resourceSpans.push({ resource: { attributes: resource }, scopeSpans: [{ scope, spans: [request] }] })
    })
  })
  return { format: 'jaeger', request: { resourceSpans }, origins }
}

/**
 * A rejection's path in the converted request, as the path in the file it came from.
 * @example originalPath('resourceSpans[3].scopeSpans[0].spans[0] ("call_llm")', ['x', 'y', 'z', 'data[0].spans[3]']) // 'data[0].spans[3] ("call_llm")'
 */
export function originalPath(where: string, converted: ConvertedRecording): string {
  const match = /^resourceSpans\[(\d+)\](\.scopeSpans\[(\d+)\])?(\.spans\[(\d+)\])?(.*)$/s.exec(where)
  if (!match) return where
  const origin = converted.origins[Number(match[1])]
  if (origin === undefined) return where
  if (converted.format === 'jaeger') return `${origin}${match[6] ?? ''}`
  const scopes = match[2] ? `.instrumentationLibrarySpans[${match[3]}]` : ''
  return `${origin}${scopes}${match[4] ?? ''}${match[6] ?? ''}`
}

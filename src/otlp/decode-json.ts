/**
 * OTLP/HTTP JSON: `ExportTraceServiceRequest` and `ExportLogsServiceRequest` (OTLP spec, "JSON
 * Protobuf Encoding"): lowerCamelCase field names (the proto's snake_case names accepted too), trace
 * and span ids as hex, int64 values as decimal strings or numbers, enums as integers (names
 * accepted). One bad span or log record is rejected with where it was and why; the rest are kept.
 */
import { isRecord } from '../adk/json.ts'
import { AttributeCollector, AttributeError, type AttributeLimits, checkDepth, checkedString, int64Value } from './attributes.ts'
import type { OtlpLimits } from './limits.ts'
import {
  type Attributes,
  type AttrValue,
  type DecodedLogs,
  type DecodedTraces,
  nanosToMs,
  type OtlpLogRecord,
  OtlpRequestError,
  type OtlpSpan,
  toHex,
} from './model.ts'
import { acceptLog, acceptSpan, ItemCounter } from './validate.ts'
import { parseInPiecesLazily, resolvePiece } from './json-pieces.ts'

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/** A field by its lowerCamel JSON name or its proto snake_case name. */
function field(obj: Record<string, unknown>, camel: string): unknown {
  const value = obj[camel]
  return value !== undefined ? value : obj[snake(camel)]
}

function list(obj: Record<string, unknown>, camel: string): unknown[] {
  const value = field(obj, camel)
  return Array.isArray(value) ? value : []
}

function base64ToBytes(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text)
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return bytes
  } catch {
    return undefined
  }
}

/** A hex id (OTLP JSON), or base64 as some older exporters wrote it; '' when absent. */
export function jsonId(value: unknown, bytes: number): string | undefined {
  if (value === undefined || value === null || value === '') return ''
  if (typeof value !== 'string') return undefined
  if (value.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(value)) return value.toLowerCase()
  const decoded = base64ToBytes(value)
  return decoded?.length === bytes ? toHex(decoded) : undefined
}

/** An AnyValue JSON object to plain data, bounded by the attribute limits. */
export function jsonAnyValue(key: string, value: unknown, limits: AttributeLimits, depth = 1): AttrValue {
  if (!isRecord(value)) return null // an empty AnyValue
  const str = field(value, 'stringValue')
  if (str !== undefined) {
    if (typeof str !== 'string') throw new AttributeError(key, 'stringValue is not a string')
    return checkedString(key, str, limits)
  }
  const bool = field(value, 'boolValue')
  if (bool !== undefined) return bool === true || bool === 'true'
  const int = field(value, 'intValue')
  if (int !== undefined) {
    if (typeof int === 'number' || (typeof int === 'string' && /^-?\d+$/.test(int))) return int64Value(int)
    throw new AttributeError(key, `intValue ${JSON.stringify(String(int).slice(0, 40))} is not an integer`)
  }
  const double = field(value, 'doubleValue')
  if (double !== undefined) {
    const n = typeof double === 'string' ? Number(double) : double
    if (typeof n !== 'number') throw new AttributeError(key, 'doubleValue is not a number')
    return n
  }
  const bytes = field(value, 'bytesValue')
  if (bytes !== undefined) return typeof bytes === 'string' ? checkedString(key, bytes, limits) : null
  const array = field(value, 'arrayValue')
  if (array !== undefined) {
    checkDepth(key, depth + 1, limits)
    const values = isRecord(array) ? list(array, 'values') : []
    return values.map((item) => jsonAnyValue(key, item, limits, depth + 1))
  }
  const kvlist = field(value, 'kvlistValue')
  if (kvlist !== undefined) {
    checkDepth(key, depth + 1, limits)
    const out: Record<string, AttrValue> = {}
    for (const kv of isRecord(kvlist) ? list(kvlist, 'values') : []) {
      if (!isRecord(kv) || typeof kv.key !== 'string') throw new AttributeError(key, 'a kvlist entry has no string key')
      out[kv.key] = jsonAnyValue(`${key}.${kv.key}`, kv.value, limits, depth + 1)
    }
    return out
  }
  return null
}

/** A KeyValue list to attributes, under the count limit. */
export function jsonAttributes(raw: unknown, limits: AttributeLimits): Attributes {
  const collector = new AttributeCollector(limits)
  if (!Array.isArray(raw)) return collector.attributes
  raw.forEach((kv, i) => {
    if (!isRecord(kv) || typeof kv.key !== 'string') throw new AttributeError(`#${i}`, 'no string key')
    collector.add(kv.key, jsonAnyValue(kv.key, kv.value, limits))
  })
  return collector.attributes
}

const TRACE_NAMES = ['resourceSpans', 'scopeSpans', 'spans'] as const
const LOG_NAMES = ['resourceLogs', 'scopeLogs', 'logRecords'] as const

function parseBody(text: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new OtlpRequestError(400, `the body is not JSON: ${(error as Error).message}`)
  }
  return checkedBody(parsed)
}

function checkedBody(parsed: unknown): Record<string, unknown> {
  if (!isRecord(parsed)) throw new OtlpRequestError(400, 'the body is not a JSON object (an OTLP export request)')
  return parsed
}

type Scope = { resource: Attributes; scope: string; where: string }

/** Walks resource -> scope -> item arrays, calling `item` with each item and where it sits; a step after each item. */
function* walk(
  body: Record<string, unknown>,
  names: [resourceList: string, scopeList: string, itemList: string],
  limits: AttributeLimits,
  reject: (where: string, message: string, skipped: number) => void,
  item: (raw: Record<string, unknown>, scope: Scope) => void,
  resolve: (value: unknown) => unknown = (value) => value,
): Generator<void, void> {
  const [resourceList, scopeList, itemList] = names
  const resources = list(body, resourceList)
  for (let r = 0; r < resources.length; r++) {
    const rawResource = resources[r]
    const where = `${resourceList}[${r}]`
    if (!isRecord(rawResource)) {
      reject(where, 'not an object', 0)
      continue
    }
    let resource: Attributes
    try {
      const res = field(rawResource, 'resource')
      resource = jsonAttributes(isRecord(res) ? res.attributes : undefined, limits)
    } catch (error) {
      const skipped = list(rawResource, scopeList).reduce<number>((n, s) => n + (isRecord(s) ? list(s, itemList).length : 0), 0)
      reject(`${where}.resource`, (error as Error).message, skipped)
      continue
    }
    const scopes = list(rawResource, scopeList)
    for (let s = 0; s < scopes.length; s++) {
      const rawScope = scopes[s]
      const scopeWhere = `${where}.${scopeList}[${s}]`
      if (!isRecord(rawScope)) {
        reject(scopeWhere, 'not an object', 0)
        continue
      }
      const scopeInfo = field(rawScope, 'scope')
      const scope = isRecord(scopeInfo) && typeof scopeInfo.name === 'string' ? scopeInfo.name : ''
      const items = list(rawScope, itemList)
      for (let i = 0; i < items.length; i++) {
        // Parsed here when the body was parsed in pieces (json-pieces.ts), and let go once read.
        const raw = resolve(items[i])
        items[i] = undefined
        const itemWhere = `${scopeWhere}.${itemList}[${i}]`
        if (!isRecord(raw)) reject(itemWhere, 'not an object', 1)
        else item(raw, { resource, scope, where: itemWhere })
        yield
      }
    }
  }
}

/** Runs steps to their end at once (for a caller with nothing else to serve meanwhile). */
export function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next()
    if (next.done) return next.value
  }
}

function statusCode(raw: unknown): number {
  if (typeof raw === 'number') return raw
  if (raw === 'STATUS_CODE_OK') return 1
  if (raw === 'STATUS_CODE_ERROR') return 2
  return 0
}

/**
 * @example decodeTracesJson('{"resourceSpans":[]}', DEFAULT_OTLP_LIMITS) // { spans: [], rejectedCount: 0, rejected: [] }
 */
export function decodeTracesJson(text: string, limits: OtlpLimits): DecodedTraces {
  return drain(tracesOf(parseBody(text), limits))
}

/** An OTLP/JSON trace request's bytes to spans, a step after each piece parsed and each span read (json-pieces.ts). */
export function* decodeTracesJsonSteps(bytes: Uint8Array, limits: OtlpLimits): Generator<void, DecodedTraces> {
  const { body, unread } = yield* parseInPiecesLazily(bytes, TRACE_NAMES)
  const out = yield* tracesOf(checkedBody(body), limits, resolvePiece)
  yield* unread()
  return out
}

/** An OTLP/JSON logs request's bytes to log records, likewise. */
export function* decodeLogsJsonSteps(bytes: Uint8Array, limits: OtlpLimits): Generator<void, DecodedLogs> {
  const { body, unread } = yield* parseInPiecesLazily(bytes, LOG_NAMES)
  const out = yield* logsOf(checkedBody(body), limits, resolvePiece)
  yield* unread()
  return out
}

function* tracesOf(
  body: Record<string, unknown>,
  limits: OtlpLimits,
  resolve?: (value: unknown) => unknown,
): Generator<void, DecodedTraces> {
  const out: DecodedTraces = { spans: [], rejectedCount: 0, rejected: [] }
  const counter = new ItemCounter(limits, out, 'spans')
  yield* walk(body, [...TRACE_NAMES], limits, counter.reject, (raw, { resource, scope, where }) => {
    if (!counter.admit(where)) return
    try {
      const status = field(raw, 'status')
      const span: OtlpSpan = {
        traceId: jsonId(field(raw, 'traceId'), 16) ?? '?',
        spanId: jsonId(field(raw, 'spanId'), 8) ?? '?',
        parentSpanId: jsonId(field(raw, 'parentSpanId'), 8) ?? '?',
        name: typeof raw.name === 'string' ? raw.name : '',
        startMs: nanosToMs(field(raw, 'startTimeUnixNano')),
        endMs: nanosToMs(field(raw, 'endTimeUnixNano')),
        statusCode: isRecord(status) ? statusCode(status.code) : 0,
        statusMessage: isRecord(status) && typeof status.message === 'string' ? status.message.slice(0, 1000) : '',
        attributes: jsonAttributes(raw.attributes, limits),
        resource,
        scope,
      }
      acceptSpan(span, where, out, counter)
    } catch (error) {
      if (!(error instanceof AttributeError)) throw error
      counter.reject(where, error.message, 1)
    }
  }, resolve)
  return out
}

/**
 * @example decodeLogsJson('{"resourceLogs":[]}', DEFAULT_OTLP_LIMITS) // { logs: [], rejectedCount: 0, rejected: [] }
 */
export function decodeLogsJson(text: string, limits: OtlpLimits): DecodedLogs {
  return drain(logsOf(parseBody(text), limits))
}

function* logsOf(
  body: Record<string, unknown>,
  limits: OtlpLimits,
  resolve?: (value: unknown) => unknown,
): Generator<void, DecodedLogs> {
  const out: DecodedLogs = { logs: [], rejectedCount: 0, rejected: [] }
  const counter = new ItemCounter(limits, out, 'log records')
  yield* walk(body, [...LOG_NAMES], limits, counter.reject, (raw, { resource, scope, where }) => {
    if (!counter.admit(where)) return
    try {
      const time = nanosToMs(field(raw, 'timeUnixNano'))
      const record: OtlpLogRecord = {
        traceId: jsonId(field(raw, 'traceId'), 16) ?? '?',
        spanId: jsonId(field(raw, 'spanId'), 8) ?? '?',
        eventName: typeof field(raw, 'eventName') === 'string' ? (field(raw, 'eventName') as string) : '',
        timeMs: Number.isFinite(time) && time > 0 ? time : nanosToMs(field(raw, 'observedTimeUnixNano')),
        attributes: jsonAttributes(raw.attributes, limits),
        body: jsonAnyValue('body', raw.body, limits),
        resource,
        scope,
      }
      acceptLog(record, where, out, counter)
    } catch (error) {
      if (!(error instanceof AttributeError)) throw error
      counter.reject(where, error.message, 1)
    }
  }, resolve)
  return out
}

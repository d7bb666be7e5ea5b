/**
 * OTLP/HTTP protobuf (`application/x-protobuf`): `ExportTraceServiceRequest` and
 * `ExportLogsServiceRequest` decoded straight into the model both decoders share, reading only
 * the fields evalstream uses (field numbers from opentelemetry-proto v1: trace.proto, logs.proto,
 * common.proto, resource.proto) and skipping the rest. Hand-written rather than generated: it is a
 * few kilobytes, has no dependency and runs wherever `DataView` and `TextDecoder` do (workerd).
 */
import { AttributeCollector, AttributeError, type AttributeLimits, checkDepth, checkedString, int64Value } from './attributes.ts'
import type { OtlpLimits } from './limits.ts'
import { type Attributes, type AttrValue, type DecodedLogs, type DecodedTraces, nanosToMs, type OtlpSpan, toHex } from './model.ts'
import { ProtoReader } from './protobuf-reader.ts'
import { acceptLog, acceptSpan, ItemCounter } from './validate.ts'
import { drain } from './decode-json.ts'

function str(reader: ProtoReader, key: string, limits: AttributeLimits): string {
  const value = reader.string(limits.maxAttributeValueLength)
  if (value === undefined) throw new AttributeError(key, `value is over the attribute value length limit`)
  return checkedString(key, value, limits)
}

/** bytes_value as base64 (as OTLP JSON writes it), built in chunks: a spread of a long array would overflow the stack. */
function base64(bytes: Uint8Array, key: string, limits: AttributeLimits): string {
  if (Math.ceil(bytes.length / 3) * 4 > limits.maxAttributeValueLength) {
    throw new AttributeError(key, 'bytes value is over the attribute value length limit')
  }
  let binary = ''
  for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode(...bytes.subarray(i, i + 8192))
  return btoa(binary)
}

/** AnyValue: string 1, bool 2, int64 3, double 4, ArrayValue 5, KeyValueList 6, bytes 7. */
function anyValue(reader: ProtoReader, key: string, limits: AttributeLimits, depth: number): AttrValue {
  let value: AttrValue = null
  while (!reader.done) {
    const { field, wire } = reader.tag()
    if (field === 1 && wire === 2) value = str(reader, key, limits)
    else if (field === 2 && wire === 0) value = reader.varint() !== 0
    else if (field === 3 && wire === 0) value = int64Value(reader.int64())
    else if (field === 4 && wire === 1) value = reader.double()
    else if ((field === 5 || field === 6) && wire === 2) {
      checkDepth(key, depth + 1, limits)
      const list = reader.message()
      const items: AttrValue[] = []
      const map: Record<string, AttrValue> = {}
      while (!list.done) {
        const entry = list.tag()
        if (entry.field !== 1 || entry.wire !== 2) {
          list.skip(entry.wire)
          continue
        }
        if (field === 5) items.push(anyValue(list.message(), key, limits, depth + 1))
        else {
          const [k, v] = keyValue(list.message(), key, limits, depth + 1)
          map[k] = v
        }
      }
      value = field === 5 ? items : map
    } else if (field === 7 && wire === 2) value = base64(reader.bytes(), key, limits)
    else reader.skip(wire)
  }
  return value
}

/** KeyValue: key 1, value 2. */
function keyValue(reader: ProtoReader, parentKey: string, limits: AttributeLimits, depth: number): [string, AttrValue] {
  let key = ''
  let valueReader: ProtoReader | undefined
  while (!reader.done) {
    const { field, wire } = reader.tag()
    if (field === 1 && wire === 2) key = reader.string(limits.maxAttributeValueLength) ?? ''
    else if (field === 2 && wire === 2) valueReader = reader.message()
    else reader.skip(wire)
  }
  const fullKey = parentKey ? `${parentKey}.${key}` : key
  return [key, valueReader ? anyValue(valueReader, fullKey, limits, depth) : null]
}

function addAttribute(collector: AttributeCollector, reader: ProtoReader, limits: AttributeLimits): void {
  const [key, value] = keyValue(reader, '', limits, 1)
  collector.add(key, value)
}

/** Resource: attributes 1. */
function resourceAttributes(reader: ProtoReader, limits: AttributeLimits): Attributes {
  const collector = new AttributeCollector(limits)
  while (!reader.done) {
    const { field, wire } = reader.tag()
    if (field === 1 && wire === 2) addAttribute(collector, reader.message(), limits)
    else reader.skip(wire)
  }
  return collector.attributes
}

/** InstrumentationScope: name 1. */
function scopeName(reader: ProtoReader): string {
  let name = ''
  while (!reader.done) {
    const { field, wire } = reader.tag()
    if (field === 1 && wire === 2) name = reader.string(1000) ?? ''
    else reader.skip(wire)
  }
  return name
}

type Scoped = { resource: Attributes; scope: string; where: string }

/**
 * Request (field 1: resource list) -> Resource* (1: resource, 2: scope list) -> Scope* (1: scope,
 * 2: items): the same three levels for traces and logs. Items are handed over as readers; a step
 * after each item (and each resource), where the caller may give the event loop back.
 */
function* walk(
  bytes: Uint8Array,
  names: [string, string, string],
  limits: AttributeLimits,
  reject: (where: string, message: string, count: number) => void,
  item: (reader: ProtoReader, scoped: Scoped) => void,
): Generator<void, void> {
  const request = new ProtoReader(bytes)
  let r = 0
  while (!request.done) {
    const { field, wire } = request.tag()
    if (field !== 1 || wire !== 2) {
      request.skip(wire)
      continue
    }
    const resourceReader = request.message()
    const where = `${names[0]}[${r++}]`
    let resource: Attributes = {}
    let resourceError: string | undefined
    const scopes: ProtoReader[] = []
    while (!resourceReader.done) {
      const tag = resourceReader.tag()
      if (tag.field === 1 && tag.wire === 2) {
        try {
          resource = resourceAttributes(resourceReader.message(), limits)
        } catch (error) {
          if (!(error instanceof AttributeError)) throw error
          resourceError = error.message
        }
      } else if (tag.field === 2 && tag.wire === 2) scopes.push(resourceReader.message())
      else resourceReader.skip(tag.wire)
    }
    yield
    for (const [s, scopeReader] of scopes.entries()) {
      const scopeWhere = `${where}.${names[1]}[${s}]`
      let scope = ''
      let i = 0
      while (!scopeReader.done) {
        const tag = scopeReader.tag()
        if (tag.field === 1 && tag.wire === 2) scope = scopeName(scopeReader.message())
        else if (tag.field === 2 && tag.wire === 2) {
          const itemWhere = `${scopeWhere}.${names[2]}[${i++}]`
          const itemReader = scopeReader.message()
          if (resourceError) reject(`${where}.resource`, resourceError, 1)
          else item(itemReader, { resource, scope, where: itemWhere })
          yield
        } else scopeReader.skip(tag.wire)
      }
    }
  }
}

/** Span: trace_id 1, span_id 2, parent_span_id 4, name 5, start 7, end 8, attributes 9, status 15 (message 2, code 3). */
function span(reader: ProtoReader, scoped: Scoped, limits: AttributeLimits): OtlpSpan {
  const collector = new AttributeCollector(limits)
  const out: OtlpSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    name: '',
    startMs: Number.NaN,
    endMs: Number.NaN,
    statusCode: 0,
    statusMessage: '',
    attributes: collector.attributes,
    resource: scoped.resource,
    scope: scoped.scope,
  }
  while (!reader.done) {
    const { field, wire } = reader.tag()
    if (field === 1 && wire === 2) out.traceId = idHex(reader.bytes(), 16)
    else if (field === 2 && wire === 2) out.spanId = idHex(reader.bytes(), 8)
    else if (field === 4 && wire === 2) out.parentSpanId = idHex(reader.bytes(), 8, true)
    else if (field === 5 && wire === 2) out.name = reader.string(1000) ?? ''
    else if (field === 7 && wire === 1) out.startMs = nanosToMs(reader.fixed64())
    else if (field === 8 && wire === 1) out.endMs = nanosToMs(reader.fixed64())
    else if (field === 9 && wire === 2) addAttribute(collector, reader.message(), limits)
    else if (field === 15 && wire === 2) {
      const status = reader.message()
      while (!status.done) {
        const tag = status.tag()
        if (tag.field === 2 && tag.wire === 2) out.statusMessage = status.string(1000) ?? ''
        else if (tag.field === 3 && tag.wire === 0) out.statusCode = status.varint()
        else status.skip(tag.wire)
      }
    } else reader.skip(wire)
  }
  return out
}

function idHex(bytes: Uint8Array, size: number, emptyAllowed = false): string {
  if (bytes.length === 0) return emptyAllowed ? '' : '?'
  return bytes.length === size ? toHex(bytes) : '?'
}

/** @example decodeTracesProtobuf(new Uint8Array(), DEFAULT_OTLP_LIMITS) // { spans: [], rejectedCount: 0, rejected: [] } */
export function decodeTracesProtobuf(bytes: Uint8Array, limits: OtlpLimits): DecodedTraces {
  return drain(decodeTracesProtobufSteps(bytes, limits))
}

/** The same, a step after each span (for a caller that gives the event loop back between steps). */
export function* decodeTracesProtobufSteps(bytes: Uint8Array, limits: OtlpLimits): Generator<void, DecodedTraces> {
  const out: DecodedTraces = { spans: [], rejectedCount: 0, rejected: [] }
  const counter = new ItemCounter(limits, out, 'spans')
  yield* walk(bytes, ['resourceSpans', 'scopeSpans', 'spans'], limits, counter.reject, (reader, scoped) => {
    if (!counter.admit(scoped.where)) return
    try {
      acceptSpan(span(reader, scoped, limits), scoped.where, out, counter)
    } catch (error) {
      if (!(error instanceof AttributeError)) throw error
      counter.reject(scoped.where, error.message, 1)
    }
  })
  return out
}

/** LogRecord: time 1, body 5, attributes 6, trace_id 9, span_id 10, observed time 11, event_name 12. */
export function decodeLogsProtobuf(bytes: Uint8Array, limits: OtlpLimits): DecodedLogs {
  return drain(decodeLogsProtobufSteps(bytes, limits))
}

/** The same, a step after each log record. */
export function* decodeLogsProtobufSteps(bytes: Uint8Array, limits: OtlpLimits): Generator<void, DecodedLogs> {
  const out: DecodedLogs = { logs: [], rejectedCount: 0, rejected: [] }
  const counter = new ItemCounter(limits, out, 'log records')
  yield* walk(bytes, ['resourceLogs', 'scopeLogs', 'logRecords'], limits, counter.reject, (reader, scoped) => {
    if (!counter.admit(scoped.where)) return
    try {
      const collector = new AttributeCollector(limits)
      let time = 0
      let observed = 0
      const record = { traceId: '', spanId: '', eventName: '', timeMs: 0, attributes: collector.attributes, body: null as AttrValue }
      while (!reader.done) {
        const { field, wire } = reader.tag()
        if (field === 1 && wire === 1) time = nanosToMs(reader.fixed64())
        else if (field === 11 && wire === 1) observed = nanosToMs(reader.fixed64())
        else if (field === 5 && wire === 2) record.body = anyValue(reader.message(), 'body', limits, 1)
        else if (field === 6 && wire === 2) addAttribute(collector, reader.message(), limits)
        else if (field === 9 && wire === 2) record.traceId = idHex(reader.bytes(), 16, true)
        else if (field === 10 && wire === 2) record.spanId = idHex(reader.bytes(), 8, true)
        else if (field === 12 && wire === 2) record.eventName = reader.string(1000) ?? ''
        else reader.skip(wire)
      }
      record.timeMs = time > 0 ? time : observed
      acceptLog({ ...record, resource: scoped.resource, scope: scoped.scope }, scoped.where, out, counter)
    } catch (error) {
      if (!(error instanceof AttributeError)) throw error
      counter.reject(scoped.where, error.message, 1)
    }
  })
  return out
}

/**
 * Test-only: an OTLP JSON export request (camelCase, hex ids) encoded as OTLP protobuf, so every
 * JSON fixture also tests the protobuf decoder. Field numbers from opentelemetry-proto v1.
 */
type Json = Record<string, unknown>

class Writer {
  bytes: number[] = []
  varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value))
    while (v >= 0x80n) {
      this.bytes.push(Number(v & 0x7fn) | 0x80)
      v >>= 7n
    }
    this.bytes.push(Number(v))
  }
  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire)
  }
  lengthDelimited(field: number, payload: number[] | Uint8Array): void {
    this.tag(field, 2)
    this.varint(payload.length)
    for (const b of payload) this.bytes.push(b)
  }
  string(field: number, value: string): void {
    this.lengthDelimited(field, new TextEncoder().encode(value))
  }
  message(field: number, build: (w: Writer) => void): void {
    const inner = new Writer()
    build(inner)
    this.lengthDelimited(field, inner.bytes)
  }
  fixed64(field: number, value: string | number): void {
    this.tag(field, 1)
    let v = BigInt(value)
    for (let i = 0; i < 8; i++) {
      this.bytes.push(Number(v & 0xffn))
      v >>= 8n
    }
  }
  double(field: number, value: number): void {
    this.tag(field, 1)
    const view = new DataView(new ArrayBuffer(8))
    view.setFloat64(0, value, true)
    for (let i = 0; i < 8; i++) this.bytes.push(view.getUint8(i))
  }
}

function hex(value: unknown): Uint8Array {
  const text = String(value ?? '')
  const out = new Uint8Array(text.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16)
  return out
}

function anyValue(w: Writer, value: Json): void {
  if ('stringValue' in value) w.string(1, String(value.stringValue))
  else if ('boolValue' in value) (w.tag(2, 0), w.varint(value.boolValue ? 1 : 0))
  else if ('intValue' in value) (w.tag(3, 0), w.varint(BigInt(value.intValue as string)))
  else if ('doubleValue' in value) w.double(4, Number(value.doubleValue))
  else if ('arrayValue' in value) {
    w.message(5, (a) => ((value.arrayValue as Json).values as Json[] | undefined)?.forEach((v) => a.message(1, (x) => anyValue(x, v))))
  } else if ('kvlistValue' in value) {
    w.message(6, (l) => ((value.kvlistValue as Json).values as Json[] | undefined)?.forEach((kv) => l.message(1, (x) => keyValue(x, kv))))
  } else if ('bytesValue' in value) w.lengthDelimited(7, Uint8Array.from(atob(String(value.bytesValue)), (c) => c.charCodeAt(0)))
}

function keyValue(w: Writer, kv: Json): void {
  w.string(1, String(kv.key))
  if (kv.value) w.message(2, (v) => anyValue(v, kv.value as Json))
}

function attributes(w: Writer, field: number, list: unknown): void {
  for (const kv of (list as Json[] | undefined) ?? []) w.message(field, (x) => keyValue(x, kv))
}

function span(w: Writer, s: Json): void {
  w.lengthDelimited(1, hex(s.traceId))
  w.lengthDelimited(2, hex(s.spanId))
  if (s.parentSpanId) w.lengthDelimited(4, hex(s.parentSpanId))
  w.string(5, String(s.name ?? ''))
  if (s.kind !== undefined) (w.tag(6, 0), w.varint(Number(s.kind)))
  w.fixed64(7, s.startTimeUnixNano as string)
  w.fixed64(8, s.endTimeUnixNano as string)
  attributes(w, 9, s.attributes)
  const status = s.status as Json | undefined
  if (status) {
    w.message(15, (x) => {
      if (status.message) x.string(2, String(status.message))
      if (status.code) (x.tag(3, 0), x.varint(Number(status.code)))
    })
  }
}

function logRecord(w: Writer, r: Json): void {
  if (r.timeUnixNano) w.fixed64(1, r.timeUnixNano as string)
  if (r.body) w.message(5, (x) => anyValue(x, r.body as Json))
  attributes(w, 6, r.attributes)
  if (r.traceId) w.lengthDelimited(9, hex(r.traceId))
  if (r.spanId) w.lengthDelimited(10, hex(r.spanId))
  if (r.eventName) w.string(12, String(r.eventName))
}

function request(body: Json, lists: [string, string, string], item: (w: Writer, x: Json) => void): Uint8Array {
  const w = new Writer()
  for (const resource of (body[lists[0]] as Json[] | undefined) ?? []) {
    w.message(1, (r) => {
      if (resource.resource) r.message(1, (x) => attributes(x, 1, (resource.resource as Json).attributes))
      for (const scope of (resource[lists[1]] as Json[] | undefined) ?? []) {
        r.message(2, (s) => {
          if (scope.scope) s.message(1, (x) => x.string(1, String((scope.scope as Json).name ?? '')))
          for (const it of (scope[lists[2]] as Json[] | undefined) ?? []) s.message(2, (x) => item(x, it))
        })
      }
    })
  }
  return Uint8Array.from(w.bytes)
}

/** An ExportTraceServiceRequest (JSON form) as protobuf bytes. */
export function encodeTracesProtobuf(body: Json): Uint8Array {
  return request(body, ['resourceSpans', 'scopeSpans', 'spans'], span)
}

/** An ExportLogsServiceRequest (JSON form) as protobuf bytes. */
export function encodeLogsProtobuf(body: Json): Uint8Array {
  return request(body, ['resourceLogs', 'scopeLogs', 'logRecords'], logRecord)
}

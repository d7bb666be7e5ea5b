/**
 * What both OTLP decoders (JSON and protobuf) produce: spans and log records with plain values,
 * hex ids and millisecond times, each with the resource it came from. Everything after decoding
 * (mapping to ADK events, assembling traces) reads only this shape.
 */

/** An attribute value: OTLP's AnyValue as plain data (bytes as base64, int64 as a number). */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue }
export type Attributes = Record<string, AttrValue>

export type OtlpSpan = {
  /** 32 lowercase hex digits. */
  traceId: string
  /** 16 lowercase hex digits. */
  spanId: string
  /** Empty for a root span. */
  parentSpanId: string
  name: string
  /** Unix epoch milliseconds (fractional). */
  startMs: number
  endMs: number
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  statusCode: number
  statusMessage: string
  attributes: Attributes
  resource: Attributes
  scope: string
}

export type OtlpLogRecord = {
  /** Empty when the record is not tied to a trace. */
  traceId: string
  spanId: string
  /** `event_name`, or the `event.name` attribute older SDKs set. */
  eventName: string
  timeMs: number
  attributes: Attributes
  body: AttrValue
  resource: Attributes
  scope: string
}

/** Items refused, with where they were (`resourceSpans[0].scopeSpans[1].spans[3]`) and why. */
export type OtlpRejection = { where: string; message: string; count: number }

/**
 * `rejectedCount` is OTLP's partial-success count (`rejected_spans` / `rejected_log_records`);
 * `rejected` says where and why, for the first MAX_REPORTED_REJECTIONS of them.
 */
export type DecodedTraces = { spans: OtlpSpan[]; rejectedCount: number; rejected: OtlpRejection[] }
export type DecodedLogs = { logs: OtlpLogRecord[]; rejectedCount: number; rejected: OtlpRejection[] }

/** Rejections described one by one in a decode result; further ones are only counted. */
export const MAX_REPORTED_REJECTIONS = 100

/**
 * A whole request refused (bad bytes, wrong type, over a size limit; 503: the host could not take
 * it just now, which exporters retry): `status` is the HTTP answer.
 */
export class OtlpRequestError extends Error {
  readonly status: 400 | 413 | 415 | 503
  constructor(status: 400 | 413 | 415 | 503, message: string) {
    super(message)
    this.name = 'OtlpRequestError'
    this.status = status
  }
}

/**
 * Unix nanoseconds (string, number or bigint) to milliseconds; NaN when it is not a number.
 * @example nanosToMs('1700000000123456789') // 1700000000123.4568
 */
export function nanosToMs(value: unknown): number {
  // Whole milliseconds and the rest apart, so both decoders give the same float for the same time.
  if (typeof value === 'bigint') return Number(value / 1_000_000n) + Number(value % 1_000_000n) / 1e6
  if (typeof value === 'number') return value / 1e6
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) {
    const ms = value.length > 6 ? Number(value.slice(0, -6)) : 0
    const rest = Number(value.slice(-6)) / 1e6
    return ms + rest
  }
  return Number.NaN
}

const HEX = '0123456789abcdef'

/** Bytes to lowercase hex. @example toHex(new Uint8Array([1, 255])) // '01ff' */
export function toHex(bytes: Uint8Array): string {
  let out = ''
  for (const b of bytes) out += HEX[b >> 4]! + HEX[b & 15]!
  return out
}

/** Why a completed trace was not scored: the `reason` label of evalstream_otlp_traces_dropped_total. */
export type OtlpDropReason =
  | 'nothing_to_score'
  | 'request_session_cap'
  | 'tenant_session_cap'
  | 'late'
  | 'not_taken'

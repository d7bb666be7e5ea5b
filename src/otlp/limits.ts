/**
 * Every limit on what an OTLP client may send and on what the span assembler keeps, with its unit
 * and the environment variable that overrides it. docs/limits.md says what happens past each one.
 * The JSON found inside attribute strings (ADK's llm_request / llm_response, tool arguments) is
 * bounded by the event limits (EVALSTREAM_MAX_JSON_DEPTH, EVALSTREAM_MAX_STRING_LENGTH) as any event.
 */

/** Bytes of one OTLP request body as sent (gzip-compressed or not). */
export const MAX_OTLP_REQUEST_BYTES = 8 * 1024 * 1024
/** Bytes of one OTLP request body after gzip: a small body must not inflate without bound (zip bomb). */
export const MAX_OTLP_DECOMPRESSED_BYTES = 32 * 1024 * 1024
/** Spans (or log records) in one request; the rest are rejected (OTLP partial success). */
export const MAX_OTLP_ITEMS_PER_REQUEST = 10_000
/** Attributes on one span, log record or resource; a span with more is rejected. */
export const MAX_OTLP_ATTRIBUTES = 256
/** UTF-16 code units of one attribute string value (ADK puts whole LLM requests in one). */
export const MAX_OTLP_ATTRIBUTE_VALUE_LENGTH = 1_000_000
/** UTF-16 code units of one attribute key (a fixed bound: OTel keys are short names). */
export const MAX_OTLP_ATTRIBUTE_KEY_LENGTH = 1024
/** Nesting of array / kvlist attribute values; the attribute itself is level 1. */
export const MAX_OTLP_VALUE_DEPTH = 32

/** Traces the assembler holds open at once; past it the least recently touched one is finalised. */
export const MAX_OPEN_TRACES = 1_000
/** Spans plus log records kept for one trace; later ones are dropped and counted. */
export const MAX_SPANS_PER_TRACE = 2_000
/** Milliseconds after the last span of a trace whose root has not arrived before it is finalised anyway. */
export const TRACE_GRACE_MS = 5_000
/** Milliseconds after its finalisation that a trace's state is forgotten (late spans then start anew). */
export const TRACE_IDLE_MS = 60_000

export type OtlpLimits = {
  maxRequestBytes: number
  maxDecompressedBytes: number
  maxItemsPerRequest: number
  maxAttributes: number
  maxAttributeValueLength: number
  maxValueDepth: number
  /** Bounds of the JSON parsed out of attribute strings. */
  maxJsonDepth: number
  maxStringLength: number
}

export type AssemblerLimits = {
  maxOpenTraces: number
  maxSpansPerTrace: number
  graceMs: number
  idleMs: number
}

export const DEFAULT_OTLP_LIMITS: Readonly<OtlpLimits> = Object.freeze({
  maxRequestBytes: MAX_OTLP_REQUEST_BYTES,
  maxDecompressedBytes: MAX_OTLP_DECOMPRESSED_BYTES,
  maxItemsPerRequest: MAX_OTLP_ITEMS_PER_REQUEST,
  maxAttributes: MAX_OTLP_ATTRIBUTES,
  maxAttributeValueLength: MAX_OTLP_ATTRIBUTE_VALUE_LENGTH,
  maxValueDepth: MAX_OTLP_VALUE_DEPTH,
  maxJsonDepth: 100,
  maxStringLength: 1_000_000,
})

export const DEFAULT_ASSEMBLER_LIMITS: Readonly<AssemblerLimits> = Object.freeze({
  maxOpenTraces: MAX_OPEN_TRACES,
  maxSpansPerTrace: MAX_SPANS_PER_TRACE,
  graceMs: TRACE_GRACE_MS,
  idleMs: TRACE_IDLE_MS,
})

/** The environment variable behind each limit (JSON bounds come from the event limits). */
export const OTLP_LIMIT_ENV: Readonly<
  Record<Exclude<keyof OtlpLimits, 'maxJsonDepth' | 'maxStringLength'> | keyof AssemblerLimits, string>
> = Object.freeze({
  maxRequestBytes: 'EVALSTREAM_OTLP_MAX_REQUEST_BYTES',
  maxDecompressedBytes: 'EVALSTREAM_OTLP_MAX_DECOMPRESSED_BYTES',
  maxItemsPerRequest: 'EVALSTREAM_OTLP_MAX_ITEMS_PER_REQUEST',
  maxAttributes: 'EVALSTREAM_OTLP_MAX_ATTRIBUTES',
  maxAttributeValueLength: 'EVALSTREAM_OTLP_MAX_ATTRIBUTE_VALUE_LENGTH',
  maxValueDepth: 'EVALSTREAM_OTLP_MAX_VALUE_DEPTH',
  maxOpenTraces: 'EVALSTREAM_OTLP_MAX_OPEN_TRACES',
  maxSpansPerTrace: 'EVALSTREAM_OTLP_MAX_SPANS_PER_TRACE',
  graceMs: 'EVALSTREAM_OTLP_TRACE_GRACE_MS',
  idleMs: 'EVALSTREAM_OTLP_TRACE_IDLE_MS',
})

/**
 * How a limit is named in errors: its variable and the value in force.
 * @example otlpLimitName('maxAttributes', DEFAULT_OTLP_LIMITS) // 'EVALSTREAM_OTLP_MAX_ATTRIBUTES=256'
 */
export function otlpLimitName(limit: keyof typeof OTLP_LIMIT_ENV, limits: Partial<OtlpLimits & AssemblerLimits>): string {
  return `${OTLP_LIMIT_ENV[limit]}=${limits[limit]}`
}

/** The highest EVALSTREAM_OTLP_MAX_VALUE_DEPTH: the value readers recurse once per level (src/config/otlp.ts reads the variables). */
export const MAX_OTLP_VALUE_DEPTH_CEILING = 1_000

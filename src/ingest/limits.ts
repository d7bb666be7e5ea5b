/**
 * Every limit on what a client may send, in one place: the defaults (named constants with their
 * units) and the environment variable that overrides each, read by src/config/ingest-limits.ts. docs/limits.md says what happens past each one.
 */

/** Bytes of one request body (session create, events upload, /run_sse on Workers). Read as a stream, refused past this. */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024
/** UTF-8 bytes of one event (SSE `data`, NDJSON line, JSON array element). */
export const MAX_EVENT_BYTES = 1_000_000
/** Nesting levels of objects and arrays in one event or create body; the top value is level 1. */
export const MAX_JSON_DEPTH = 100
/** The highest MAX_JSON_DEPTH an operator may configure: recursive walkers stay far from the stack limit. */
export const MAX_JSON_DEPTH_CEILING = 1_000
/** UTF-16 code units of one JSON string (value or key) in an event or create body. */
export const MAX_STRING_LENGTH = 1_000_000
/** Events recorded by one session, accepted and rejected together. */
export const MAX_EVENTS_PER_SESSION = 100_000
/** Distinct invocation ids in one session. */
export const MAX_INVOCATIONS_PER_SESSION = 10_000
/**
 * Milliseconds of synchronous scoring one event may take. Scoring is linear in the event's size
 * (a 1 MB event takes a few ms), so this only catches the pathological; it is generous because a
 * garbage-collection pause inside an event counts too.
 */
export const MAX_EVENT_CPU_MS = 250
/** Milliseconds of synchronous scoring one session may take in total (ordinary events take microseconds). */
export const MAX_SESSION_CPU_MS = 60_000

export type Limits = {
  maxRequestBytes: number
  maxEventBytes: number
  maxJsonDepth: number
  maxStringLength: number
  maxEventsPerSession: number
  maxInvocationsPerSession: number
  maxEventCpuMs: number
  maxSessionCpuMs: number
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxRequestBytes: MAX_REQUEST_BYTES,
  maxEventBytes: MAX_EVENT_BYTES,
  maxJsonDepth: MAX_JSON_DEPTH,
  maxStringLength: MAX_STRING_LENGTH,
  maxEventsPerSession: MAX_EVENTS_PER_SESSION,
  maxInvocationsPerSession: MAX_INVOCATIONS_PER_SESSION,
  maxEventCpuMs: MAX_EVENT_CPU_MS,
  maxSessionCpuMs: MAX_SESSION_CPU_MS,
})

/** The environment variable that sets each limit. */
export const LIMIT_ENV: Readonly<Record<keyof Limits, string>> = Object.freeze({
  maxRequestBytes: 'EVALSTREAM_MAX_REQUEST_BYTES',
  maxEventBytes: 'EVALSTREAM_MAX_EVENT_BYTES',
  maxJsonDepth: 'EVALSTREAM_MAX_JSON_DEPTH',
  maxStringLength: 'EVALSTREAM_MAX_STRING_LENGTH',
  maxEventsPerSession: 'EVALSTREAM_MAX_EVENTS_PER_SESSION',
  maxInvocationsPerSession: 'EVALSTREAM_MAX_INVOCATIONS_PER_SESSION',
  maxEventCpuMs: 'EVALSTREAM_MAX_EVENT_CPU_MS',
  maxSessionCpuMs: 'EVALSTREAM_MAX_SESSION_CPU_MS',
})

export const LIMIT_CEILING: Partial<Record<keyof Limits, number>> = { maxJsonDepth: MAX_JSON_DEPTH_CEILING }

/**
 * How a limit is named in problems and issues: its variable and the value in force.
 * @example limitName('maxJsonDepth', DEFAULT_LIMITS) // 'EVALSTREAM_MAX_JSON_DEPTH=100'
 */
export function limitName(limit: keyof Limits, limits: Limits): string {
  return `${LIMIT_ENV[limit]}=${limits[limit]}`
}

/**
 * The `limit` member of a problem+json that a limit refused: its variable and the value in force.
 * @example limitMember('maxRequestBytes', DEFAULT_LIMITS) // { name: 'EVALSTREAM_MAX_REQUEST_BYTES', value: 16777216 }
 */
export function limitMember(limit: keyof Limits, limits: Limits): { name: string; value: number } {
  return { name: LIMIT_ENV[limit], value: limits[limit] }
}

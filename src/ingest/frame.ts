/**
 * One frame's text or JSON value -> a decoded event or an issue. Shared by every body format.
 */
import { parseAdkEvent } from '../adk/event-fast.ts'
import { toCamel } from '../adk/casing.ts'
import { findJsonBoundsViolation, type JsonBoundsViolation } from '../adk/json-bounds.ts'
import { scanJsonBounds } from '../adk/json-scan.ts'
import { DEFAULT_LIMITS, limitName, type Limits } from './limits.ts'
import type { DecoderOutput, IngestIssue } from './types.ts'
import { isRecord } from '../adk/json.ts'

/** Frames longer than this (UTF-16 code units) have their bounds checked before JSON.parse. */
export const SCAN_BEFORE_PARSE_CHARS = 64 * 1024

/** The limits one frame is held to. */
export type FrameLimits = Pick<Limits, 'maxEventBytes' | 'maxJsonDepth' | 'maxStringLength'>

/**
 * UTF-8 length of a string, without encoding it. Lone surrogates count 3 bytes, as TextEncoder
 * writes them (U+FFFD).
 * @example utf8ByteLength('é') // 2
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}

/** Whether a text of this many UTF-16 code units could exceed the byte limit (at most 3 bytes each). */
export function mayExceedLimit(codeUnits: number, maxBytes: number = DEFAULT_LIMITS.maxEventBytes): boolean {
  return codeUnits * 3 > maxBytes
}

export function tooLarge(index: number, bytes?: number, limits: FrameLimits = DEFAULT_LIMITS): IngestIssue {
  const size = bytes === undefined ? 'more than' : `${bytes} bytes, more than`
  const message = `event is ${size} the limit of ${limits.maxEventBytes} bytes (${limitName('maxEventBytes', limits as Limits)})`
  return { index, kind: 'too_large', message }
}

/**
 * The depth and string-length check every frame passes before anything recursive (zod,
 * JSON.stringify, the engine) sees it. Iterative, so a 100,000-level frame is just an issue.
 * @example boundsIssue(JSON.parse('[[[]]]'), 4, { ...DEFAULT_LIMITS, maxJsonDepth: 2 }) // { index: 4, kind: 'too_deep', path: '$[0][0]', … }
 */
export function boundsIssue(value: unknown, index: number, limits: FrameLimits = DEFAULT_LIMITS): IngestIssue | undefined {
  const found = findJsonBoundsViolation(value, limits)
  return found ? violationIssue(found, index, limits) : undefined
}

/**
 * A broken bound as an issue; from the raw text (json-scan.ts) it also says at which character.
 * @example violationIssue({ kind: 'depth', path: '$[0]', depth: 2 }, 0, { ...DEFAULT_LIMITS, maxJsonDepth: 1 }).kind // 'too_deep'
 */
export function violationIssue(
  found: JsonBoundsViolation & { offset?: number },
  index: number,
  limits: FrameLimits = DEFAULT_LIMITS,
): IngestIssue {
  const at = found.offset === undefined ? '' : ` (at character ${found.offset})`
  if (found.kind === 'depth') {
    const name = limitName('maxJsonDepth', limits as Limits)
    const message = `${found.path}: nested more than ${limits.maxJsonDepth} levels deep (${name})${at}`
    return { index, kind: 'too_deep', message, path: found.path }
  }
  const name = limitName('maxStringLength', limits as Limits)
  const message = `${found.path}: a string of ${found.length} characters, more than ${limits.maxStringLength} (${name})${at}`
  return { index, kind: 'string_too_long', message, path: found.path }
}

/**
 * A zod path (snake_case field names, after alias renaming) spelled the way the frame spells it,
 * so `$.content.parts[0].functionCall.name` points at what the sender actually wrote.
 */
function pathInRaw(path: readonly PropertyKey[], raw: unknown): string {
  let out = '$'
  let node: unknown = raw
  for (const segment of path) {
    if (typeof segment === 'number') {
      out += `[${segment}]`
      node = Array.isArray(node) ? node[segment] : undefined
      continue
    }
    let key = String(segment)
    if (isRecord(node) && !(key in node) && toCamel(key) in node) key = toCamel(key)
    out += /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
    node = isRecord(node) ? node[key] : undefined
  }
  return out
}

/**
 * A parsed JSON value -> event or issue.
 * @example decodeFrameValue({ author: 'agent', invocationId: 'e-1' }, 0) // { index: 0, event: {…}, raw: {…} }
 */
export function decodeFrameValue(value: unknown, index: number, limits: FrameLimits = DEFAULT_LIMITS): DecoderOutput {
  return boundsIssue(value, index, limits) ?? decodeCheckedValue(value, index)
}

/** decodeFrameValue for a value that already passed `boundsIssue`. */
export function decodeCheckedValue(value: unknown, index: number): DecoderOutput {
  if (!isRecord(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`
    return { index, kind: 'invalid_event', message: `expected an ADK event object, got ${got}`, path: '$' }
  }
  // /run_sse reports a failure mid-stream as {"error": "<message>"}; no ADK event has an `error` key.
  if ('error' in value) {
    const error = value.error
    const message = typeof error === 'string' ? error : JSON.stringify(error)
    return { index, kind: 'agent_error', message: message ?? 'agent error' }
  }
  // The fast path gives zod's result for ordinary events; anything else (and every error) is zod's.
  const parsed = parseAdkEvent(value)
  if (!parsed.success) {
    const first = parsed.error.issues[0]
    const path = pathInRaw(first?.path ?? [], value)
    return { index, kind: 'invalid_event', message: `${path}: ${first?.message ?? 'invalid event'}`, path }
  }
  // ADK's Event.author has no default: `{}` (or any event without one) is not an ADK event.
  if (typeof parsed.data.author !== 'string') {
    return { index, kind: 'invalid_event', message: AUTHOR_REQUIRED, path: '$.author' }
  }
  return { index, event: parsed.data, raw: value }
}

const AUTHOR_REQUIRED = `$.author: required: an ADK event names its author ("user" or the agent's name)`

/**
 * A frame's text (SSE data, NDJSON line) -> event or issue.
 * @example decodeFrameText('{"author": "agent"', 3) // { index: 3, kind: 'invalid_json', message: … }
 */
export function decodeFrameText(text: string, index: number, limits: FrameLimits = DEFAULT_LIMITS): DecoderOutput {
  if (mayExceedLimit(text.length, limits.maxEventBytes)) {
    const bytes = utf8ByteLength(text)
    if (bytes > limits.maxEventBytes) return tooLarge(index, bytes, limits)
  }
  // A big frame is checked on its raw text first, so it is never parsed out of bounds; a small one
  // costs little to parse (a few MB of heap at most) and is checked on the value, which is faster.
  if (text.length > SCAN_BEFORE_PARSE_CHARS) {
    const found = scanJsonBounds(text, limits)
    if (found) return violationIssue(found, index, limits)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { index, kind: 'invalid_json', message: `invalid JSON: ${(error as Error).message}` }
  }
  return decodeFrameValue(value, index, limits)
}

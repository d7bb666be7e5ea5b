/**
 * What the ingest stage produces: decoded events and issues, both numbered by frame.
 * Structurally these are the engine's `IngestedEvent` and `RejectedEvent` (src/engine/types.ts),
 * an issue additionally saying what kind of problem it is.
 */
import type { AdkEvent } from '../adk/event.ts'

/** A frame (SSE `data`, NDJSON line, JSON array element) larger than this, in UTF-8 bytes, is rejected (default; see limits.ts). */
export { MAX_EVENT_BYTES } from './limits.ts'

/** The body formats the decoder reads. */
export type EventFormat = 'sse' | 'ndjson' | 'json'

/**
 * - `invalid_json`: the frame is not JSON.
 * - `invalid_event`: JSON, but not an ADK event (not an object, or a field of the wrong type).
 * - `too_large`: more than the event byte limit (EVALSTREAM_MAX_EVENT_BYTES).
 * - `too_deep`: objects and arrays nested deeper than EVALSTREAM_MAX_JSON_DEPTH.
 * - `string_too_long`: a string or key longer than EVALSTREAM_MAX_STRING_LENGTH.
 * - `agent_error`: `/run_sse` reported that the agent failed (`data: {"error": "..."}`).
 */
export type IngestIssueKind = 'invalid_json' | 'invalid_event' | 'too_large' | 'too_deep' | 'string_too_long' | 'agent_error'

/** A frame that did not become an event. `path` points into the frame's JSON, e.g. `$.content.parts[0].text`. */
export type IngestIssue = { index: number; kind: IngestIssueKind; message: string; path?: string }

/** A good frame: `raw` is the JSON object exactly as received (camelCase, unknown keys and all). */
export type DecodedEvent = { index: number; event: AdkEvent; raw: Record<string, unknown> }

/** What a decoder stream yields. Tell the two apart with `isIngestIssue`. */
export type DecoderOutput = DecodedEvent | IngestIssue

/** @example isIngestIssue({ index: 0, kind: 'invalid_json', message: '…' }) // true */
export function isIngestIssue(output: DecoderOutput): output is IngestIssue {
  return !('event' in output)
}

export type DecoderCallbacks = {
  onEvent(item: DecodedEvent): void
  onIssue(issue: IngestIssue): void
}

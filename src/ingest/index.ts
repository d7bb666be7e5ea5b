/** src/ingest: bytes (SSE, NDJSON, JSON) -> ADK events, with numbered issues for bad frames. */
export { createEventDecoder, decodeAll, type EventDecoder, EventDecoderStream } from './decoder.ts'
export { formatFromContentType, sniffFormat } from './format.ts'
export {
  boundsIssue,
  decodeCheckedValue,
  decodeFrameText,
  decodeFrameValue,
  type FrameLimits,
  utf8ByteLength,
  violationIssue,
} from './frame.ts'
export {
  DEFAULT_LIMITS,
  LIMIT_ENV,
  limitMember,
  limitName,
  type Limits,
  MAX_EVENT_CPU_MS,
  MAX_EVENTS_PER_SESSION,
  MAX_INVOCATIONS_PER_SESSION,
  MAX_JSON_DEPTH,
  MAX_JSON_DEPTH_CEILING,
  MAX_REQUEST_BYTES,
  MAX_SESSION_CPU_MS,
  MAX_STRING_LENGTH,
} from './limits.ts'
export {
  type DecodedEvent,
  type DecoderCallbacks,
  type DecoderOutput,
  type EventFormat,
  type IngestIssue,
  type IngestIssueKind,
  isIngestIssue,
  MAX_EVENT_BYTES,
} from './types.ts'

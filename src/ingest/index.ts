/** src/ingest: bytes (SSE, NDJSON, JSON) -> ADK events, with numbered issues for bad frames. */
export { createEventDecoder, decodeAll, type EventDecoder, EventDecoderStream } from './decoder.ts'
export { formatFromContentType, sniffFormat } from './format.ts'
export { decodeFrameText, decodeFrameValue, utf8ByteLength } from './frame.ts'
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

/** src/otlp: OTLP/HTTP trace and log requests -> spans -> the ADK events and invocations they stand for. */
export {
  decodeLogsRequest,
  decodeTraceRequest,
  joinChunks,
  type OtlpBodyHeaders,
  type OtlpEncoding,
  otlpEncodingOf,
  readOtlpBody,
} from './body.ts'
export { decodeLogsJson, decodeTracesJson } from './decode-json.ts'
export { decodeLogsProtobuf, decodeTracesProtobuf } from './decode-protobuf.ts'
export * from './limits.ts'
export * from './model.ts'
export { type AssemblerOptions, type CompletionReason, createSpanAssembler, type SpanAssembler, type TraceUpdate } from './assembler.ts'
export { type Conversation, conversationKey, toAdkInvocation, tracesToConversations } from './invocations.ts'
export { CONTENT_OFF_REASON, contentReason, type ContentSdk, contentSdkOf } from './content-reasons.ts'
export { type Absence } from './span-readers.ts'
export { type Missing, type MissingField, type TracedToolCall, type TraceInvocation, traceToInvocation } from './trace-to-events.ts'
export { type DecodedOtlpFile, decodeOtlpFile, looksLikeOtlpJson, type OtlpFileIssue } from './file.ts'
export { convertTraceStoreExport, looksLikeTraceStoreExport, type TraceStoreFormat } from './trace-stores.ts'
export { unscorableMetrics } from './unscorable.ts'
export { exportResponse, rejectionMessage } from './response.ts'

/** src/otlp: OTLP/HTTP trace and log requests -> spans -> the ADK events and invocations they stand for. */
export { decodeLogsRequest, decodeTraceRequest, otlpEncodingOf, readOtlpBody, type OtlpBodyHeaders, type OtlpEncoding } from './body.ts'
export { decodeLogsJson, decodeTracesJson } from './decode-json.ts'
export { decodeLogsProtobuf, decodeTracesProtobuf } from './decode-protobuf.ts'
export * from './limits.ts'
export * from './model.ts'

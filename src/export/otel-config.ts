/**
 * OpenTelemetry export settings from the standard OTEL_* variables (the names every OpenTelemetry
 * SDK reads, so a deployment's existing settings apply unchanged). Only the logs signal is used:
 * evaluation results are events, and OpenTelemetry events are log records. Read by
 * src/config/otel.ts.
 */
/** Log records waiting at most (OTEL_BLRP_MAX_QUEUE_SIZE; the SDKs' default). */
export const OTEL_MAX_QUEUE_RECORDS = 2048
/** Log records per export request at most (OTEL_BLRP_MAX_EXPORT_BATCH_SIZE; the SDKs' default). */
export const OTEL_MAX_BATCH_RECORDS = 512
/** One export request may take this long (ms) before it is aborted and retried (OTEL_EXPORTER_OTLP_TIMEOUT). */
export const OTEL_EXPORT_TIMEOUT_MS = 10_000
/** Attempts per batch, the first included, before it is dropped (EVALSTREAM_OTEL_MAX_ATTEMPTS). */
export const OTEL_MAX_ATTEMPTS = 5
/** The first retry's wait (ms); each later one doubles, up to OTEL_MAX_BACKOFF_MS. */
export const OTEL_BACKOFF_MS = 500
export const OTEL_MAX_BACKOFF_MS = 30_000
/** Characters kept of a string attribute (the explanation); OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT lowers or raises it. */
export const OTEL_MAX_ATTRIBUTE_CHARS = 4096
/** service.name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one. */
export const OTEL_DEFAULT_SERVICE_NAME = 'evalstream'

export type OtelConfig = {
  /** Where log records are POSTed (…/v1/logs). */
  endpoint: string
  headers: Record<string, string>
  /** Resource attributes, service.name included. */
  resource: Record<string, string>
  timeoutMs: number
  maxQueue: number
  maxBatch: number
  maxAttempts: number
  maxAttributeChars: number
}

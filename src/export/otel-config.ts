/**
 * OpenTelemetry export settings from the standard OTEL_* variables (the names every OpenTelemetry
 * SDK reads, so a deployment's existing settings apply unchanged). Only the logs signal is used:
 * evaluation results are events, and OpenTelemetry events are log records.
 */
import { type Read, wholeNumber } from '../config/env.ts'
import { flag, keyValueList } from '../config/env-lists.ts'
import type { Env } from '../config/setup.ts'

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

/**
 * Off (undefined) unless OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set;
 * OTEL_SDK_DISABLED=true or OTEL_LOGS_EXPORTER=none turn it off even then.
 * @example
 * otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })
 * // { ok: true, value: { endpoint: 'http://collector:4318/v1/logs', resource: { 'service.name': 'evalstream' }, … } }
 */
export function otelConfigFromEnv(env: Env): Read<OtelConfig | undefined> & { notes?: string[] } {
  const logsEndpoint = env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT?.trim()
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  if (!logsEndpoint && !base) return { ok: true, value: undefined }
  if (flag(env, 'OTEL_SDK_DISABLED') || env.OTEL_LOGS_EXPORTER?.trim().toLowerCase() === 'none')
    return { ok: true, value: undefined, notes: ['OpenTelemetry: off (OTEL_SDK_DISABLED or OTEL_LOGS_EXPORTER=none)'] }
  // The signal-specific variable is used as given; the base one gets the logs path appended.
  const name = logsEndpoint ? 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'
  const endpoint = logsEndpoint ?? `${base!.replace(/\/+$/, '')}/v1/logs`
  try {
    const url = new URL(endpoint)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)')
  } catch {
    return { ok: false, error: `${name} is not an http(s) URL: '${logsEndpoint ?? base}'` }
  }
  const notes: string[] = []
  const protocolName = env.OTEL_EXPORTER_OTLP_LOGS_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_LOGS_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL'
  const protocol = env[protocolName]?.trim()
  if (protocol === 'grpc')
    return { ok: false, error: `${protocolName}=grpc: evalstream exports OTLP over HTTP (http/json); point it at the collector's HTTP port (4318)` }
  if (protocol && protocol !== 'http/json' && protocol !== 'http/protobuf')
    return { ok: false, error: `${protocolName} must be http/json or http/protobuf, not '${protocol}'` }
  if (protocol === 'http/protobuf') notes.push(`OpenTelemetry: ${protocolName}=http/protobuf; sending http/json, which OTLP/HTTP receivers accept on the same path`)

  const headers = keyValueList(env, env.OTEL_EXPORTER_OTLP_LOGS_HEADERS?.trim() ? 'OTEL_EXPORTER_OTLP_LOGS_HEADERS' : 'OTEL_EXPORTER_OTLP_HEADERS')
  if (!headers.ok) return headers
  const attributes = keyValueList(env, 'OTEL_RESOURCE_ATTRIBUTES')
  if (!attributes.ok) return attributes
  const resource: Record<string, string> = { 'service.name': OTEL_DEFAULT_SERVICE_NAME, ...Object.fromEntries(attributes.value) }
  const service = env.OTEL_SERVICE_NAME?.trim()
  if (service) resource['service.name'] = service

  const timeoutName = env.OTEL_EXPORTER_OTLP_LOGS_TIMEOUT?.trim() ? 'OTEL_EXPORTER_OTLP_LOGS_TIMEOUT' : 'OTEL_EXPORTER_OTLP_TIMEOUT'
  const numbers = {
    timeoutMs: wholeNumber(env, timeoutName, OTEL_EXPORT_TIMEOUT_MS),
    maxQueue: wholeNumber(env, 'OTEL_BLRP_MAX_QUEUE_SIZE', OTEL_MAX_QUEUE_RECORDS),
    maxBatch: wholeNumber(env, 'OTEL_BLRP_MAX_EXPORT_BATCH_SIZE', OTEL_MAX_BATCH_RECORDS),
    maxAttempts: wholeNumber(env, 'EVALSTREAM_OTEL_MAX_ATTEMPTS', OTEL_MAX_ATTEMPTS),
    maxAttributeChars: wholeNumber(env, 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT', OTEL_MAX_ATTRIBUTE_CHARS),
  }
  const value: Partial<OtelConfig> = { endpoint, headers: Object.fromEntries(headers.value), resource }
  for (const [key, read] of Object.entries(numbers) as [keyof typeof numbers, Read<number>][]) {
    if (!read.ok) return read
    value[key] = read.value
  }
  notes.push(`OpenTelemetry: gen_ai.evaluation.result events to ${endpoint} as service '${resource['service.name']}'`)
  return { ok: true, value: value as OtelConfig, notes }
}

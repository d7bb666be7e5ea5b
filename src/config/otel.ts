/**
 * OpenTelemetry export settings from the standard OTEL_* variables (the names every OpenTelemetry
 * SDK reads, so a deployment's existing settings apply unchanged); the defaults and their meaning
 * are in src/export/otel-config.ts.
 */
import { type Env, type Read, wholeNumbersFromEnv } from './env.ts'
import { flag, keyValueList } from './env-lists.ts'
import { deliverySettingsFromEnv } from './delivery.ts'
import {
  OTEL_DEFAULT_SERVICE_NAME,
  OTEL_EXPORT_TIMEOUT_MS,
  OTEL_MAX_ATTEMPTS,
  OTEL_MAX_ATTRIBUTE_CHARS,
  OTEL_MAX_BATCH_RECORDS,
  OTEL_MAX_QUEUE_RECORDS,
  type OtelConfig,
} from '../export/otel-config.ts'

/**
 * Off (undefined) unless OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set;
 * OTEL_SDK_DISABLED=true or OTEL_LOGS_EXPORTER=none turn it off even then.
 * @example
 * otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })
 * // { ok: true, value: { endpoint: 'http://collector:4318/v1/logs', resource: { 'service.name': 'evalstream' }, … } }
 */
export function otelConfigFromEnv(env: Env): Read<OtelConfig | undefined> {
  const logsEndpoint = env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT?.trim()
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  if (!logsEndpoint && !base) return { ok: true, value: undefined }
  if (flag(env, 'OTEL_SDK_DISABLED') || env.OTEL_LOGS_EXPORTER?.trim().toLowerCase() === 'none') {
    return { ok: true, value: undefined, notes: ['OpenTelemetry: off (OTEL_SDK_DISABLED or OTEL_LOGS_EXPORTER=none)'] }
  }
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
  if (protocol === 'grpc') {
    return {
      ok: false,
      error: `${protocolName}=grpc: evalstream exports OTLP over HTTP (http/json); point it at the collector's HTTP port (4318)`,
    }
  }
  if (protocol && protocol !== 'http/json' && protocol !== 'http/protobuf') {
    return { ok: false, error: `${protocolName} must be http/json or http/protobuf, not '${protocol}'` }
  }
  if (protocol === 'http/protobuf') {
    notes.push(`OpenTelemetry: ${protocolName}=http/protobuf; sending http/json, which OTLP/HTTP receivers accept on the same path`)
  }

  const headers = keyValueList(
    env,
    env.OTEL_EXPORTER_OTLP_LOGS_HEADERS?.trim() ? 'OTEL_EXPORTER_OTLP_LOGS_HEADERS' : 'OTEL_EXPORTER_OTLP_HEADERS',
  )
  if (!headers.ok) return headers
  const attributes = keyValueList(env, 'OTEL_RESOURCE_ATTRIBUTES')
  if (!attributes.ok) return attributes
  const resource: Record<string, string> = { 'service.name': OTEL_DEFAULT_SERVICE_NAME, ...Object.fromEntries(attributes.value) }
  const service = env.OTEL_SERVICE_NAME?.trim()
  if (service) resource['service.name'] = service

  const timeoutName = env.OTEL_EXPORTER_OTLP_LOGS_TIMEOUT?.trim() ? 'OTEL_EXPORTER_OTLP_LOGS_TIMEOUT' : 'OTEL_EXPORTER_OTLP_TIMEOUT'
  const delivery = deliverySettingsFromEnv(
    env,
    { timeoutMs: timeoutName, maxQueue: 'OTEL_BLRP_MAX_QUEUE_SIZE', maxAttempts: 'EVALSTREAM_OTEL_MAX_ATTEMPTS' },
    { timeoutMs: OTEL_EXPORT_TIMEOUT_MS, maxQueue: OTEL_MAX_QUEUE_RECORDS, maxAttempts: OTEL_MAX_ATTEMPTS },
  )
  if (!delivery.ok) return delivery
  const sizes = wholeNumbersFromEnv(
    env,
    { maxBatch: 'OTEL_BLRP_MAX_EXPORT_BATCH_SIZE', maxAttributeChars: 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT' },
    { maxBatch: OTEL_MAX_BATCH_RECORDS, maxAttributeChars: OTEL_MAX_ATTRIBUTE_CHARS },
  )
  if (!sizes.ok) return sizes
  const value: OtelConfig = { endpoint, headers: Object.fromEntries(headers.value), resource, ...delivery.value, ...sizes.value }
  notes.push(`OpenTelemetry: gen_ai.evaluation.result events to ${endpoint} as service '${resource['service.name']}'`)
  return { ok: true, value, notes }
}

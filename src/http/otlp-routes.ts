/**
 * `POST /v1/traces` and `POST /v1/logs`: the OTLP/HTTP receiver (JSON or protobuf, optionally
 * gzip), so an agent's stock OpenTelemetry exporter pointed at evalstream
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`) is monitored unchanged. Answers as the OTLP spec asks: 200 with
 * an Export*ServiceResponse in the request's encoding (partial success naming what was rejected
 * and why), 400 / 413 / 415 with a google.rpc.Status, and 429 with Retry-After when this host is
 * already decoding its limit of OTLP requests (the exporter retries, as OTLP says it should).
 * The tenant is the bearer token's, as on every route; spans go to the OTLP monitor
 * (src/session/otlp-monitor.ts), which scores each trace into its conversation's session.
 */
import type { Context } from 'hono'
import {
  type AssemblerLimits,
  decodeLogsRequest,
  decodeTraceRequest,
  exportResponse,
  type OtlpEncoding,
  otlpEncodingOf,
  type OtlpLimits,
  OtlpRequestError,
} from '../otlp/index.ts'
import type { OtlpMonitor } from '../session/otlp-monitor.ts'
import { tenantOf } from './auth.ts'
import { describeRoute, type RouteDoc } from './openapi-describe.ts'

/** OTLP requests decoded at once per process; more are answered 429 with Retry-After. */
export const MAX_CONCURRENT_OTLP_REQUESTS = 32
/** Seconds a refused exporter is told to wait (Retry-After). */
export const OTLP_RETRY_AFTER_S = 1

export type OtlpReceiver = {
  monitor: OtlpMonitor
  limits: OtlpLimits
  maxConcurrent?: number
  /** The timers' settings, for a host that schedules its own ticks (a Durable Object's alarm). */
  assembler?: AssemblerLimits
  conversationIdleMs?: number
}

/** A google.rpc.Status (code 3 INVALID_ARGUMENT etc.) in the request's encoding. */
function status(encoding: OtlpEncoding, httpStatus: number, message: string, headers: Record<string, string> = {}): Response {
  const code = httpStatus === 429 ? 8 : httpStatus === 413 ? 11 : httpStatus === 415 ? 3 : httpStatus >= 500 ? 13 : 3
  if (encoding === 'json') {
    return new Response(JSON.stringify({ code, message }), {
      status: httpStatus,
      headers: { 'content-type': 'application/json', ...headers },
    })
  }
  const text = new TextEncoder().encode(message)
  const out: number[] = [0x08, code, 0x12]
  for (let n = text.length;; n = Math.floor(n / 0x80)) {
    if (n < 0x80) {
      out.push(n)
      break
    }
    out.push((n % 0x80) | 0x80)
  }
  const body = new Uint8Array(out.length + text.length)
  body.set(out)
  body.set(text, out.length)
  return new Response(body, { status: httpStatus, headers: { 'content-type': 'application/x-protobuf', ...headers } })
}

/** @example app.post('/v1/traces', otlpRoute('traces', receiver)) */
export function otlpRoute(kind: 'traces' | 'logs', receiver: OtlpReceiver): (c: Context) => Promise<Response> {
  let inFlight = 0
  const max = receiver.maxConcurrent ?? MAX_CONCURRENT_OTLP_REQUESTS
  return async (c) => {
    const contentType = c.req.header('content-type')
    const encoding = otlpEncodingOf(contentType) ?? 'json'
    if (inFlight >= max) {
      await c.req.raw.body?.cancel().catch(() => {})
      const message =
        `this server is decoding ${max} OTLP requests already (MAX_CONCURRENT_OTLP_REQUESTS); retry after ${OTLP_RETRY_AFTER_S} s`
      return status(encoding, 429, message, { 'retry-after': String(OTLP_RETRY_AFTER_S) })
    }
    inFlight += 1
    try {
      const headers = { contentType, contentEncoding: c.req.header('content-encoding') }
      const tenant = tenantOf(c)
      if (kind === 'traces') {
        const decoded = await decodeTraceRequest(c.req.raw.body, headers, receiver.limits)
        await receiver.monitor.addSpans(tenant, decoded.spans)
        return answer(kind, encoding, decoded)
      }
      const decoded = await decodeLogsRequest(c.req.raw.body, headers, receiver.limits)
      await receiver.monitor.addLogs(tenant, decoded.logs)
      return answer(kind, encoding, decoded)
    } catch (e) {
      if (e instanceof OtlpRequestError) return status(encoding, e.status, e.message)
      return status(encoding, 500, `internal error: ${(e as Error).message}`)
    } finally {
      inFlight -= 1
    }
  }
}

function answer(kind: 'traces' | 'logs', encoding: OtlpEncoding, decoded: Parameters<typeof exportResponse>[2]): Response {
  const { contentType, body } = exportResponse(kind, encoding, decoded)
  return new Response(body as BodyInit, { status: 200, headers: { 'content-type': contentType } })
}

/** `POST /v1/metrics`: answered as accepted without reading the body (evalstream scores traces, not metrics). */
export async function otlpMetricsDropped(c: Context): Promise<Response> {
  await c.req.raw.body?.cancel().catch(() => {})
  const encoding = otlpEncodingOf(c.req.header('content-type')) ?? 'json'
  return encoding === 'json'
    ? new Response('{}', { headers: { 'content-type': 'application/json' } })
    : new Response(new Uint8Array(), { headers: { 'content-type': 'application/x-protobuf' } })
}

const OTLP_BODY = {
  description: 'An OTLP Export*ServiceRequest (opentelemetry-proto v1), optionally Content-Encoding: gzip',
  required: true,
  content: {
    'application/json': { text: 'OTLP/JSON' },
    'application/x-protobuf': { text: 'OTLP protobuf' },
  },
}
const STATUS = (description: string) => ({
  description,
  text: { mediaType: 'application/json', description: 'a google.rpc.Status ({ code, message }), in protobuf when the request was' },
})
const otlpDoc = (path: string, what: string, kind: string): RouteDoc =>
  describeRoute({
    method: 'post',
    path,
    tag: 'otlp',
    summary: `OTLP/HTTP ${what} receiver`,
    description:
      `What an agent's OpenTelemetry exporter sends with OTEL_EXPORTER_OTLP_ENDPOINT pointed here; each conversation becomes a monitored session \`otlp-<conversation>\` (docs/otlp.md).`,
    body: OTLP_BODY,
    responses: {
      200: {
        description: `taken; \`partialSuccess\` counts and explains rejected ${kind}`,
        text: {
          mediaType: 'application/json',
          description: `an Export${what === 'trace' ? 'Trace' : 'Logs'}ServiceResponse, in protobuf when the request was`,
        },
      },
      400: STATUS('not JSON, truncated protobuf or bad gzip'),
      413: STATUS('past EVALSTREAM_OTLP_MAX_REQUEST_BYTES or _MAX_DECOMPRESSED_BYTES'),
      415: STATUS('neither application/json nor application/x-protobuf, or an encoding other than gzip'),
      429: { ...STATUS('MAX_CONCURRENT_OTLP_REQUESTS are being decoded; retry'), headers: { 'Retry-After': 'seconds to wait' } },
    },
  })

/** The receiver's routes for /openapi.json. */
export const OTLP_DOCS: readonly RouteDoc[] = [
  otlpDoc('/v1/traces', 'trace', 'spans'),
  otlpDoc('/v1/logs', 'logs', 'log records'),
  describeRoute({
    method: 'post',
    path: '/v1/metrics',
    tag: 'otlp',
    summary: 'OTLP/HTTP metrics, taken and dropped',
    description: 'An SDK pointed at OTEL_EXPORTER_OTLP_ENDPOINT sends metrics too; nothing here uses them.',
    body: OTLP_BODY,
    responses: {
      200: {
        description: 'taken, not read',
        text: { mediaType: 'application/json', description: 'an empty ExportMetricsServiceResponse' },
      },
    },
  }),
]

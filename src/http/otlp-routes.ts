/**
 * `POST /v1/traces` and `POST /v1/logs`: the OTLP/HTTP receiver (JSON or protobuf, optionally
 * gzip), so an agent's stock OpenTelemetry exporter pointed at evalstream
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`) is monitored unchanged. Answers as the OTLP spec asks: 200 with
 * an Export*ServiceResponse in the request's encoding (partial success naming what was rejected
 * and why), 400 / 413 / 415 with a google.rpc.Status, 408 for a body that does not arrive within
 * its deadline, and 429 / 503 with Retry-After when the process or the tenant is at a limit (the
 * exporter retries, as OTLP says it should). A body is read to its end, under a deadline and
 * charged to its tenant's bytes and the process budget (otlp-intake.ts), before it takes one of
 * the decode slots, which tenants share. The tenant is the bearer token's, as on every route;
 * spans go to the OTLP monitor (src/otlp-monitor/monitor.ts), which scores each trace into its
 * conversation's session (partial success for traces its session caps refused).
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
  readOtlpBody,
} from '../otlp/index.ts'
import type { OtlpRejection } from '../otlp/model.ts'
import type { ProcessByteBudget } from '../session/byte-budget.ts'
import type { OtlpIngestOutcome, OtlpMonitor } from '../otlp-monitor/monitor.ts'
import type { DeadlineTimer } from '../judge/within-deadline.ts'
import type { OtlpRequestRefusal } from '../monitor/prometheus.ts'
import type { Admission } from './admission.ts'
import { tenantOf } from './auth.ts'
import {
  DEFAULT_OTLP_BODY_TIMEOUT_MS,
  DEFAULT_OTLP_MAX_TENANT_BYTES,
  inflateCharged,
  type IntakeLedger,
  intakeLedger,
  IntakeRefused,
  readBodyWithin,
} from './otlp-intake.ts'
import { describeRoute, type RouteDoc } from './openapi/describe.ts'
import { dropRefusedBody } from './read-body.ts'
import { bodyReader } from './node-body.ts'
import { createTurnSlicer, type TurnSlicerOptions } from '../ingest/turn-slicer.ts'

/** OTLP requests decoded at once per process; more are answered 429 with Retry-After. */
export const MAX_CONCURRENT_OTLP_REQUESTS = 32
/** Of those, the most one tenant's requests may hold (EVALSTREAM_OTLP_CONCURRENCY_PER_TENANT). */
export const DEFAULT_OTLP_CONCURRENCY_PER_TENANT = 8
/**
 * Spans (or pieces of a JSON body, or 256 KiB chunks joined) decoded before the loop is given back
 * even when the 5 ms slice has not run out by the clock (on deployed Workers it does not move
 * without I/O). A span takes some 10-50 µs to parse and read.
 */
export const OTLP_DECODE_UNITS_PER_SLICE = 200
/** Seconds a refused exporter is told to wait (Retry-After). */
export const OTLP_RETRY_AFTER_S = 1

export type OtlpReceiver = {
  monitor: OtlpMonitor
  limits: OtlpLimits
  maxConcurrent?: number
  /** Decode slots one tenant may hold at once; default DEFAULT_OTLP_CONCURRENCY_PER_TENANT. */
  maxConcurrentPerTenant?: number
  /** How long reading one body may take; default DEFAULT_OTLP_BODY_TIMEOUT_MS. */
  bodyTimeoutMs?: number
  /** Bytes one tenant's requests may hold at once; default DEFAULT_OTLP_MAX_TENANT_BYTES. */
  maxTenantBytes?: number
  /** The timers' settings, for a host that schedules its own ticks (a Durable Object's alarm). */
  assembler?: AssemblerLimits
  conversationIdleMs?: number
}

/** What the routes share beyond the receiver's settings: the host's admission, memory budget and clock. */
export type OtlpRouteHost = {
  /**
   * Asked before a request is read: while the host is behind, a tenant that already has a request
   * in progress is told to come back (503); a tenant with none is served, so the sender keeping the
   * loop busy is the one held back, not every exporter.
   */
  admission?: Admission
  /** The process byte budget bodies in flight are charged to. */
  budget?: ProcessByteBudget
  /** Makes the signal that ends a body's read (default AbortSignal.timeout; tests move their own clock). */
  deadline?: DeadlineTimer
  /** Called once per request refused whole (for counters). */
  refused?: (reason: OtlpRequestRefusal) => void
  /** How long a request's decoding may hold the loop before giving it back (tests inject a clock that counts work). */
  turns?: TurnSlicerOptions
}

/** A google.rpc.Status (code 3 INVALID_ARGUMENT etc.) in the request's encoding. */
function status(encoding: OtlpEncoding, httpStatus: number, message: string, headers: Record<string, string> = {}): Response {
  const code = httpStatus === 429
    ? 8
    : httpStatus === 413
    ? 11
    : httpStatus === 415
    ? 3
    : httpStatus === 408
    ? 4
    : httpStatus >= 500
    ? 13
    : 3
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

/** Decode slots for the process and for each tenant, shared by /v1/traces and /v1/logs of one receiver. */
type DecodeSlots = { take(tenant: string | undefined): 'decode_slots' | 'tenant_decode_slots' | (() => void) }

function decodeSlots(max: number, perTenant: number): DecodeSlots {
  let inFlight = 0
  const byTenant = new Map<string, number>()
  return {
    take(tenant) {
      const key = tenant ?? ''
      const mine = byTenant.get(key) ?? 0
      if (inFlight >= max) return 'decode_slots'
      if (mine >= perTenant) return 'tenant_decode_slots'
      inFlight += 1
      byTenant.set(key, mine + 1)
      let released = false
      return () => {
        if (released) return
        released = true
        inFlight -= 1
        const left = (byTenant.get(key) ?? 1) - 1
        if (left > 0) byTenant.set(key, left)
        else byTenant.delete(key)
      }
    },
  }
}

/** Per receiver (its monitor): the slots and bytes both routes share. */
const shared = new WeakMap<OtlpMonitor, { slots: DecodeSlots; ledger: IntakeLedger; inProgress: Map<string, number> }>()

/** @example app.post('/v1/traces', otlpRoute('traces', receiver, { admission, budget: store.bytes })) */
export function otlpRoute(kind: 'traces' | 'logs', receiver: OtlpReceiver, host: OtlpRouteHost = {}): (c: Context) => Promise<Response> {
  const max = receiver.maxConcurrent ?? MAX_CONCURRENT_OTLP_REQUESTS
  const perTenant = Math.min(max, receiver.maxConcurrentPerTenant ?? DEFAULT_OTLP_CONCURRENCY_PER_TENANT)
  let state = shared.get(receiver.monitor)
  if (!state) {
    state = {
      slots: decodeSlots(max, perTenant),
      ledger: intakeLedger(receiver.maxTenantBytes ?? DEFAULT_OTLP_MAX_TENANT_BYTES, host.budget),
      inProgress: new Map(),
    }
    shared.set(receiver.monitor, state)
  }
  const { slots, ledger, inProgress } = state
  const timeoutMs = receiver.bodyTimeoutMs ?? DEFAULT_OTLP_BODY_TIMEOUT_MS
  const deadline = host.deadline ?? ((ms: number) => AbortSignal.timeout(ms))
  return async (c) => {
    const contentType = c.req.header('content-type')
    const encoding = otlpEncodingOf(contentType) ?? 'json'
    const tenant = tenantOf(c)
    // Once reading has begun the body is the reader's: a refusal then drops nothing more itself.
    let reading = false
    const refuse = async (reason: OtlpRequestRefusal, code: number, message: string, retryAfterS?: number) => {
      host.refused?.(reason)
      if (!reading) await dropRefusedBody(c.req.raw)
      return status(encoding, code, message, retryAfterS === undefined ? {} : { 'retry-after': String(retryAfterS) })
    }
    const key = tenant ?? ''
    const busy = inProgress.get(key) ?? 0
    const admission = busy > 0 ? host.admission?.() : undefined
    if (admission) {
      const message = `the server is behind (event loop delay ${Math.round(admission.measuredMs)} ms, above ${admission.limitMs} ms, ` +
        `${admission.variable}) and this tenant has ${busy} OTLP request(s) in progress; retry after ${admission.retryAfterS} s`
      return refuse('admission', 503, message, admission.retryAfterS)
    }
    inProgress.set(key, busy + 1)
    const held = ledger.hold(tenant)
    let release: (() => void) | undefined
    try {
      const contentEncoding = c.req.header('content-encoding')
      const gzip = (contentEncoding ?? '').trim().toLowerCase() === 'gzip'
      // Refused before a byte is read when the type or encoding is not OTLP's (415).
      await readOtlpBody(new Uint8Array(), { contentType, contentEncoding: gzip ? undefined : contentEncoding }, receiver.limits)
      // Read to its end (under the deadline, charged) before a decode slot is taken.
      // Joining, inflating and decoding the body give the loop back between slices: a request of
      // megabytes holds it a slice at a time.
      const slicer = createTurnSlicer({ maxUnits: OTLP_DECODE_UNITS_PER_SLICE, ...host.turns })
      reading = true
      const raw = await readBodyWithin(bodyReader(c), receiver.limits, held, deadline(timeoutMs), timeoutMs, slicer)
      const slot = slots.take(tenant)
      if (typeof slot === 'string') {
        const message = slot === 'decode_slots'
          ? `this server is decoding ${max} OTLP requests already (MAX_CONCURRENT_OTLP_REQUESTS); retry after ${OTLP_RETRY_AFTER_S} s`
          : `this tenant's OTLP requests hold ${perTenant} of the decode slots already (EVALSTREAM_OTLP_CONCURRENCY_PER_TENANT); retry after ${OTLP_RETRY_AFTER_S} s`
        return await refuse(slot, 429, message, OTLP_RETRY_AFTER_S)
      }
      release = slot
      const plain = gzip ? await inflateCharged(raw, receiver.limits, held, slicer) : raw
      const bytes = { contentType }
      if (kind === 'traces') {
        const decoded = await decodeTraceRequest(plain, bytes, receiver.limits, slicer)
        host.turns?.report?.(slicer.longestMs)
        const outcome = await receiver.monitor.addSpans(tenant, decoded.spans)
        if (outcome.overloaded) throw new IntakeRefused(outcome.overloaded)
        return answer(kind, encoding, withRefused(decoded, decoded.spans, outcome))
      }
      const decoded = await decodeLogsRequest(plain, bytes, receiver.limits, slicer)
      host.turns?.report?.(slicer.longestMs)
      const outcome = await receiver.monitor.addLogs(tenant, decoded.logs)
      if (outcome.overloaded) throw new IntakeRefused(outcome.overloaded)
      return answer(kind, encoding, withRefused(decoded, decoded.logs, outcome))
    } catch (e) {
      if (e instanceof IntakeRefused) return await refuse(e.refusal.reason, e.refusal.status, e.refusal.message, e.refusal.retryAfterS)
      if (e instanceof OtlpRequestError) return status(encoding, e.status, e.message)
      return status(encoding, 500, `internal error: ${(e as Error).message}`)
    } finally {
      release?.()
      held.release()
      const left = (inProgress.get(key) ?? 1) - 1
      if (left > 0) inProgress.set(key, left)
      else inProgress.delete(key)
    }
  }
}

/**
 * The decode result with the items of traces a session cap refused counted as rejected, one
 * message per limit (OTLP partial success: the exporter is told what was not kept, and why).
 */
function withRefused<T extends { traceId: string }>(
  decoded: { rejectedCount: number; rejected: readonly OtlpRejection[] },
  items: readonly T[],
  outcome: OtlpIngestOutcome,
): { rejectedCount: number; rejected: readonly OtlpRejection[] } {
  if (outcome.refused.length === 0) return decoded
  const limitOf = new Map(outcome.refused.map((r) => [r.traceId, r]))
  const byLimit = new Map<string, { rejection: OtlpRejection; traces: Set<string> }>()
  let count = 0
  for (const item of items) {
    const refused = limitOf.get(item.traceId)
    if (!refused) continue
    count += 1
    let entry = byLimit.get(refused.limit)
    if (!entry) byLimit.set(refused.limit, entry = { rejection: { where: '', message: refused.message, count: 0 }, traces: new Set() })
    entry.rejection.count += 1
    entry.traces.add(item.traceId)
  }
  const extra = [...byLimit.values()].map(({ rejection, traces }) => ({
    ...rejection,
    where: `${traces.size} trace(s) (${rejection.count} item(s), first trace ${traces.values().next().value})`,
  }))
  return { rejectedCount: decoded.rejectedCount + count, rejected: [...extra, ...decoded.rejected] }
}

function answer(kind: 'traces' | 'logs', encoding: OtlpEncoding, decoded: Parameters<typeof exportResponse>[2]): Response {
  const { contentType, body } = exportResponse(kind, encoding, decoded)
  return new Response(body as BodyInit, { status: 200, headers: { 'content-type': contentType } })
}

/** `POST /v1/metrics`: answered as accepted, its body dropped unparsed (evalstream scores traces, not metrics). */
export async function otlpMetricsDropped(c: Context): Promise<Response> {
  await dropRefusedBody(c.req.raw)
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
      408: STATUS('the body did not arrive within EVALSTREAM_OTLP_BODY_TIMEOUT_MS'),
      429: {
        ...STATUS(
          "MAX_CONCURRENT_OTLP_REQUESTS are being decoded, or the tenant's share of them (EVALSTREAM_OTLP_CONCURRENCY_PER_TENANT), or its bytes in flight or held (EVALSTREAM_OTLP_MAX_TENANT_BYTES, _MAX_TENANT_HELD_BYTES); retry",
        ),
        headers: { 'Retry-After': 'seconds to wait' },
      },
      503: {
        ...STATUS(
          'the process byte budget is full (EVALSTREAM_MAX_PROCESS_BYTES), or the loop is behind and this tenant has a request in progress; retry',
        ),
        headers: { 'Retry-After': 'seconds to wait' },
      },
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

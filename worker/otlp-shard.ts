/**
 * OTLP on Workers, sharded by trace. The router (index.ts) decodes each `POST /v1/traces` and
 * `/v1/logs` itself, under the same limits as Node, and splits its spans and log records by trace
 * id: each part goes to the shard object owning those traces, `otlp/<shard>/<tenant>` in the OTLP
 * namespace, where shard = hash(trace id) mod EVALSTREAM_OTLP_SHARDS. All spans of a trace reach
 * the same shard, so a shard sees each of its traces whole: it runs the same monitor as Node (the
 * span assembler, the early pieces, the late-span rule) and sends each settled piece and each
 * completed trace to its conversation's session object (`otlp-<conversation>` in SESSIONS), which
 * feeds it into its session as Node does and ends the conversation once it has been idle
 * (conversation-idle.ts). A shard's alarm drives only the trace grace.
 *
 * The tenant is part of the shard's name, so tenants never share a shard (trace ids are the
 * client's word). Object-to-object requests use paths under `/__otlp/`, which the router never
 * forwards to an object, so no client can reach them.
 */
import type { SessionSpec } from '../src/engine/types.ts'
import type { Limits } from '../src/ingest/limits.ts'
import { depsFromEnv } from '../src/config/setup.ts'
import { OtlpRequestError } from '../src/otlp/index.ts'
import type { OtlpLogRecord, OtlpSpan } from '../src/otlp/index.ts'
import type { OtlpReceiver } from '../src/http/otlp-routes.ts'
import { type OtlpIngestOutcome, type OtlpMonitor, storeDelivery, type TraceDelivery } from '../src/otlp-monitor/monitor.ts'
import type { EngineFactory } from '../src/session/session.ts'
import { memorySessionStore, type SessionStore } from '../src/session/store.ts'
import { shardOf } from './shards.ts'
import { type DurableObjectNamespace, type DurableObjectState, stringEnv, type WorkerEnv } from './types.ts'

/** A session object's side: a settled piece or a completed trace of its conversation. */
export const OTLP_INTERNAL_PATH = /^\/__otlp\/(invocation|end)$/
/** A shard's side: the spans or log records of its traces, decoded by the router. */
export const SHARD_PATH = /^\/__otlp\/(spans|logs)$/
/** Test hooks of a shard (EVALSTREAM_TEST_HOOKS=1): evict it; say which tenants' spans it holds. */
export const SHARD_HOOK_PATH = /^\/__otlp\/(evict|info)$/

/**
 * A shard's object name. The shard number comes first and holds no `/`, so no two (shard, tenant)
 * pairs share a name, and the tenant in it keeps tenants apart.
 * @example otlpShardName('acme', 3) // 'otlp/3/acme'
 */
export function otlpShardName(tenant: string | undefined, shard: number): string {
  return `otlp/${shard}/${tenant ?? ''}`
}

export function shardStub(namespace: DurableObjectNamespace, tenant: string | undefined, shard: number) {
  return namespace.get(namespace.idFromName(otlpShardName(tenant, shard)))
}

/** Groups items by the shard of their trace. */
function byShard<T extends { traceId: string }>(items: readonly T[], shards: number): Map<number, T[]> {
  const parts = new Map<number, T[]>()
  for (const item of items) {
    const shard = shardOf(item.traceId, shards)
    const part = parts.get(shard)
    if (part) part.push(item)
    else parts.set(shard, [item])
  }
  return parts
}

/**
 * The router's monitor: what the OTLP route (src/http/otlp-routes.ts) hands decoded spans to, so
 * decoding, its limits and the OTLP answers (partial success included) are Node's. Each shard's part
 * is sent at once, in parallel. A shard that cannot take its part makes the whole request a 503,
 * which OTLP exporters retry: the shards that did take theirs recognise the spans again by span id
 * (a trace already scored counts them as late, never twice).
 */
export function shardedOtlpMonitor(namespace: DurableObjectNamespace, shards: number): OtlpMonitor {
  const send = async (kind: 'spans' | 'logs', tenant: string | undefined, items: readonly (OtlpSpan | OtlpLogRecord)[]) => {
    const total: OtlpIngestOutcome = { traces: 0, invocations: 0, dropped: [], refused: [] }
    const answers = await Promise.allSettled(
      [...byShard(items, shards)].map(async ([shard, part]) => {
        const response = await shardStub(namespace, tenant, shard).fetch(
          new Request(`https://otlp.internal/__otlp/${kind}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ tenant: tenant ?? null, [kind]: part }),
          }),
        )
        if (!response.ok) {
          await response.body?.cancel()
          throw new Error(`OTLP shard ${shard} answered ${response.status}`)
        }
        return (await response.json()) as OtlpIngestOutcome
      }),
    )
    const failed: string[] = []
    for (const a of answers) {
      if (a.status === 'rejected') failed.push(a.reason instanceof Error ? a.reason.message : String(a.reason))
      else {
        total.traces += a.value.traces
        total.invocations += a.value.invocations
        total.dropped.push(...a.value.dropped)
        total.refused.push(...(a.value.refused ?? []))
        // One shard short of room makes the request's answer a retry; what the others took counts once.
        if (a.value.overloaded && !total.overloaded) total.overloaded = a.value.overloaded
      }
    }
    if (failed.length > 0) throw new OtlpRequestError(503, `retry: ${failed.length} of ${answers.length} shard(s) failed (${failed[0]})`)
    return total
  }
  const none = async (): Promise<OtlpIngestOutcome> => ({ traces: 0, invocations: 0, dropped: [], refused: [] })
  return {
    addSpans: (tenant, spans) => send('spans', tenant, spans),
    addLogs: (tenant, logs) => send('logs', tenant, logs),
    // The shards tick on their own alarms; the router holds nothing.
    tick: none,
    flush: none,
    openTraces: () => 0,
    activeConversations: () => 0,
  }
}

/** Delivery to each conversation's session object (session-object.ts receives it). */
export function objectDelivery(env: WorkerEnv): TraceDelivery {
  const send = async (sessionId: string, op: 'invocation' | 'end', body: unknown) => {
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(sessionId))
    return stub.fetch(
      new Request(`https://session.internal/__otlp/${op}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      }),
    )
  }
  return {
    async invocation(sessionId, spec, events, complete) {
      const res = await send(sessionId, 'invocation', { spec, events, complete })
      const answer = (await res.json().catch(() => ({}))) as { refused?: string }
      return res.ok ? answer.refused : `session object answered ${res.status}: ${answer.refused ?? ''}`
    },
    async end(sessionId) {
      await (await send(sessionId, 'end', { session_id: sessionId })).body?.cancel()
    },
  }
}

/**
 * A session object's side of the delivery: the same as on Node, into its own store. `taken` is
 * told of every piece the session took (its conversation's idle clock restarts).
 */
export async function receiveInternal(
  request: Request,
  store: SessionStore,
  createEngine: EngineFactory,
  limits: Limits,
  taken: (sessionId: string) => void,
): Promise<Response> {
  const op = OTLP_INTERNAL_PATH.exec(new URL(request.url).pathname)?.[1]
  const body = (await request.json()) as { spec: SessionSpec; events: never[]; complete: boolean; session_id: string }
  const local = storeDelivery(store, createEngine, limits)
  if (op === 'end') {
    await local.end(body.session_id)
    return Response.json({})
  }
  const refused = await local.invocation(body.spec.session_id, body.spec, body.events, body.complete === true)
  if (refused === undefined) taken(body.spec.session_id)
  return Response.json(refused === undefined ? {} : { refused })
}

/**
 * One OTLP shard of one tenant: the monitor over its traces, its alarm the trace grace. Open
 * traces are held in memory, as on Node: an evicted shard loses the spans of traces still open,
 * never an invocation already delivered (that is in its session object's SQLite).
 */
export class OtlpShard {
  state: DurableObjectState
  receiver: OtlpReceiver | undefined
  error: string | undefined
  hooks: boolean
  /** Whose spans this instance took (the tenant named the object, so one at most): for the test hook. */
  tenants = new Set<string>()

  constructor(state: DurableObjectState, env: WorkerEnv) {
    this.state = state
    this.hooks = env.EVALSTREAM_TEST_HOOKS === '1'
    const setup = depsFromEnv(stringEnv(env), {
      // Unused: every trace goes to its session's object.
      store: memorySessionStore({ sweeper: 'manual' }),
      otlpDelivery: objectDelivery(env),
      otlpEndsConversations: false,
    })
    if (setup.ok) this.receiver = setup.deps.otlp
    else this.error = setup.error
  }

  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname
    const hook = this.hooks ? SHARD_HOOK_PATH.exec(path)?.[1] : undefined
    if (hook === 'evict') {
      // Everything in memory goes (the open traces), as when the runtime evicts the object.
      this.state.abort('evicted by test hook')
      return new Response(null, { status: 204 })
    }
    if (hook === 'info') return Response.json({ tenants: [...this.tenants], open_traces: this.receiver?.monitor.openTraces() ?? 0 })
    const kind = SHARD_PATH.exec(path)?.[1]
    if (request.method !== 'POST' || !kind) return new Response(null, { status: 404 })
    const receiver = this.receiver
    if (!receiver) return Response.json({ error: this.error }, { status: 500 })
    const body = (await request.json()) as { tenant: string | null; spans?: OtlpSpan[]; logs?: OtlpLogRecord[] }
    const tenant = body.tenant ?? undefined
    this.tenants.add(tenant ?? '')
    const outcome = kind === 'spans'
      ? await receiver.monitor.addSpans(tenant, body.spans ?? [])
      : await receiver.monitor.addLogs(tenant, body.logs ?? [])
    await this.scheduleGrace()
    return Response.json(outcome)
  }

  async alarm(): Promise<void> {
    await this.receiver?.monitor.tick()
    await this.scheduleGrace(true)
  }

  /**
   * Wakes the shard a grace period from now while traces are open. A set alarm is left as it is:
   * moved on every request, it would never fire while spans keep coming, and a trace whose root
   * never comes would never complete. So a trace completes between one and two graces after its last span.
   */
  async scheduleGrace(fired = false): Promise<void> {
    const receiver = this.receiver
    if (!receiver?.assembler || receiver.monitor.openTraces() === 0) return
    if (!fired && (await this.state.storage.getAlarm()) !== null) return
    await this.state.storage.setAlarm(Date.now() + receiver.assembler.graceMs)
  }
}

/**
 * OTLP on Workers. The router hands every `POST /v1/traces` and `/v1/logs` of a tenant to one
 * object, `otlp/<tenant>` (a name no session id can take: session ids hold no `/`), which runs the
 * span assembler: a trace's spans arrive in several requests, and only one place that sees them
 * all can tell when it is complete and which conversation it belongs to. Each completed trace is
 * sent to its conversation's own session object (`otlp-<conversation>`), which feeds it through the
 * session feed like any session; that object's results stream, index and export as usual. The
 * grace and idle timers are this object's alarm.
 *
 * Object-to-object requests use paths under `/__otlp/`, which the router never forwards to an
 * object (it forwards only /v1/sessions/*, /v1/runs/*, /run_sse, /dev/apps/* and the OTLP routes),
 * so no client can reach them.
 */
import type { SessionSpec } from '../src/engine/types.ts'
import type { Limits } from '../src/ingest/limits.ts'
import type { AssemblerLimits } from '../src/otlp/index.ts'
import { storeDelivery, type TraceDelivery } from '../src/session/otlp-monitor.ts'
import type { EngineFactory } from '../src/session/session.ts'
import type { SessionStore } from '../src/session/store.ts'
import type { WorkerEnv } from './types.ts'

export const OTLP_INTERNAL_PATH = /^\/__otlp\/(invocation|end)$/

/** The object that assembles a tenant's spans. */
export function otlpObjectName(tenant: string | undefined): string {
  return `otlp/${tenant ?? ''}`
}

/** Delivery to each conversation's session object. */
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

/** A session object's side of the delivery: the same as on Node, into its own store. */
export async function receiveInternal(
  request: Request,
  store: SessionStore,
  createEngine: EngineFactory,
  limits: Limits,
): Promise<Response> {
  const op = OTLP_INTERNAL_PATH.exec(new URL(request.url).pathname)?.[1]
  const body = (await request.json()) as { spec: SessionSpec; events: never[]; complete: boolean; session_id: string }
  const local = storeDelivery(store, createEngine, limits)
  if (op === 'end') {
    await local.end(body.session_id)
    return Response.json({})
  }
  const refused = await local.invocation(body.spec.session_id, body.spec, body.events, body.complete === true)
  return Response.json(refused === undefined ? {} : { refused })
}

/** When the assembler's object should wake next: soon while traces are open, else at the idle time. */
export function nextOtlpAlarm(
  now: number,
  openTraces: number,
  activeConversations: number,
  assembler: AssemblerLimits,
  idleMs: number,
): number | undefined {
  if (openTraces > 0) return now + assembler.graceMs
  if (activeConversations > 0) return now + idleMs
  return undefined
}

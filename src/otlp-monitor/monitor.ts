/**
 * Production agents monitored from their own OpenTelemetry: decoded spans and log records go to a
 * span assembler per tenant (trace ids are the client's word, so tenants never share one), and each
 * trace becomes one invocation of the session its conversation maps to, fed through the session
 * feed (every per-session limit holds) so its results stream, index and export like any session's.
 * Its settled pieces are pushed as they arrive (early.ts); the rest when the trace completes:
 * its root span arrived, or the grace period passed (EVALSTREAM_OTLP_TRACE_GRACE_MS). A conversation
 * with no trace for EVALSTREAM_OTLP_CONVERSATION_IDLE_MS is ended, which emits its case result.
 * `tick()` drives both timers, against the injected clock.
 *
 * A trace's conversation can be unknown in its first spans (ADK JS puts no session id on
 * `execute_tool` spans): the assembler holds every span by trace id, and nothing of the trace is
 * routed before a span says which conversation it belongs to (or it completes without one).
 */
import type { JsonBounds } from '../adk/json-bounds.ts'
import type { IngestedEvent, SessionSpec } from '../engine/types.ts'
import { DEFAULT_LIMITS, type Limits } from '../ingest/limits.ts'
import {
  type AssemblerLimits,
  conversationKey,
  createSpanAssembler,
  type OtlpDropReason,
  type OtlpLogRecord,
  type OtlpSpan,
  type SpanAssembler,
  type TraceInvocation,
  type TraceUpdate,
  unscorableMetrics,
} from '../otlp/index.ts'
import { feedSession } from '../session/feed.ts'
import { MAX_TURN_SLICE_MS, nextMacrotask } from '../ingest/turn-slicer.ts'
import type { EngineFactory, HostedSession } from '../session/session.ts'
import type { SessionStore } from '../session/store.ts'
import { TRACE_MARK_KEY, type TraceMark } from '../otlp/trace-mark.ts'
import { earlyPushes } from './early.ts'
import { type ConversationTimes, memoryConversationTimes } from './conversations.ts'
import type { AdkEvent } from '../adk/event.ts'
import { otlpSessionId } from '../otlp/session-id.ts'
import { DEFAULT_OTLP_MAX_TENANT_HELD_BYTES, heldBytes, type HeldRefusal, type ItemSizes, measureItems } from './held-bytes.ts'

export { otlpSessionId } from '../otlp/session-id.ts'

/** A conversation with no new trace for this long is ended (its case result is emitted). */
export const DEFAULT_CONVERSATION_IDLE_MS = 30 * 60 * 1000
/** Sessions one OTLP request (or one tick's completions) may open (EVALSTREAM_OTLP_MAX_NEW_SESSIONS_PER_REQUEST). */
export const DEFAULT_OTLP_MAX_NEW_SESSIONS_PER_REQUEST = 100
/** Monitored conversations one tenant may have open (EVALSTREAM_OTLP_MAX_SESSIONS_PER_TENANT). */
export const DEFAULT_OTLP_MAX_SESSIONS_PER_TENANT = 500
/** Dropped traces named one by one in the log per batch; the rest are counted in one line. */
const LOGGED_DROPS = 5
/**
 * Spans (or log records) assembled and mapped per turn of the event loop: a request of 10,000 is
 * taken in slices, with other work (health checks, other tenants' requests) run between them.
 */
export const OTLP_ITEMS_PER_SLICE = 25
/** Spans (or log records) sized per turn for the held-bytes charge (a few µs each). */
export const OTLP_ITEMS_MEASURED_PER_SLICE = 1_000
/**
 * Completed or updated traces pushed into sessions per turn of the event loop at most (opening a
 * session costs a few ms); fewer once the turn has run MAX_TURN_SLICE_MS by the slice clock.
 */
export const OTLP_UPDATES_PER_SLICE = 5

/** Caps on the sessions the monitor opens, so no exporter can crowd out other sessions. */
export type OtlpSessionCaps = { maxNewSessionsPerRequest: number; maxSessionsPerTenant: number }

export const DEFAULT_OTLP_SESSION_CAPS: Readonly<OtlpSessionCaps> = Object.freeze({
  maxNewSessionsPerRequest: DEFAULT_OTLP_MAX_NEW_SESSIONS_PER_REQUEST,
  maxSessionsPerTenant: DEFAULT_OTLP_MAX_SESSIONS_PER_TENANT,
})

/** A completed trace refused a session by a cap: its spans are counted as rejected in the request's answer. */
export type OtlpRefusedTrace = { traceId: string; limit: string; message: string }

/** What to score an app's conversations with: an ADK EvalConfig and, optionally, an EvalCase as reference. */
export type MonitoredApp = { eval_config?: unknown; eval_case?: unknown }

/**
 * Where a completed trace goes: into a session of this host's store (Node, Deno), or to the
 * session's own Durable Object (Workers). Returns why it was not taken, or undefined.
 */
export type TraceDelivery = {
  /** Feeds `events` into the session (created with `spec` if new); `complete` then completes the invocation. */
  invocation(sessionId: string, spec: SessionSpec, events: IngestedEvent['event'][], complete: boolean): Promise<string | undefined>
  /** Ends the session (its case result); a session already ended or gone is not an error. */
  end(sessionId: string): Promise<void>
}

export type OtlpMonitorOptions = {
  /** Defaults to delivering into `store`. */
  delivery?: TraceDelivery
  store: SessionStore
  createEngine: EngineFactory
  /** The app's monitoring config by `gen_ai.agent.name` (root agent) or `service.name`; undefined: the default. */
  appConfig: (appName: string | undefined) => MonitoredApp
  assemblerLimits: AssemblerLimits
  /** Bounds on JSON inside attributes, and every per-session limit of the feed. */
  limits?: Limits
  conversationIdleMs?: number
  /** Defaults to DEFAULT_OTLP_SESSION_CAPS. */
  sessionCaps?: OtlpSessionCaps
  /** Bytes of spans the assembler may hold for one tenant; default DEFAULT_OTLP_MAX_TENANT_HELD_BYTES. */
  maxTenantHeldBytes?: number
  /** Called once per completed trace that was not scored, with why (for counters). */
  dropped?: (reason: OtlpDropReason) => void
  /** Where the conversations' last trace times are kept (survives a restart); in memory when absent. */
  conversations?: ConversationTimes
  /**
   * False: this monitor never ends a conversation, each session ends itself once idle (a Worker's
   * session objects: a conversation's traces may be assembled by several monitors, and only its
   * session sees them all). Default true.
   */
  endsConversations?: boolean
  /** Lets other work run between slices of a request (default: a macrotask); tests count the slices. */
  pause?: () => Promise<void>
  /**
   * What times a slice of pushes (ms, any origin; default performance.now): a turn that has run
   * `sliceMs` (default MAX_TURN_SLICE_MS) gives the loop back before its next push. Tests inject
   * one that counts work; on deployed Workers it does not move, and OTLP_UPDATES_PER_SLICE bounds a turn.
   */
  sliceClock?: () => number
  sliceMs?: number
  now?: () => number
  log?: (message: string) => void
}

export type OtlpIngestOutcome = {
  traces: number
  invocations: number
  dropped: string[]
  /** Completed traces a session cap refused (their spans are not kept). */
  refused: OtlpRefusedTrace[]
  /** The request was refused whole, nothing of it taken: the assembler holds too much (held-bytes.ts). */
  overloaded?: HeldRefusal
}

export type OtlpMonitor = {
  addSpans(tenant: string | undefined, spans: readonly OtlpSpan[]): Promise<OtlpIngestOutcome>
  addLogs(tenant: string | undefined, logs: readonly OtlpLogRecord[]): Promise<OtlpIngestOutcome>
  /** Completes traces past their grace and ends idle conversations. */
  tick(): Promise<OtlpIngestOutcome>
  /** Completes every open trace (shutdown). */
  flush(): Promise<OtlpIngestOutcome>
  /** Open traces held across tenants. */
  openTraces(): number
  /** Conversations waiting for their idle time to end them. */
  activeConversations(): number
}

/** The trace mark its first event carries (src/otlp/trace-mark.ts). */
export function traceMark(trace: TraceInvocation): TraceMark {
  const end = trace.durationMs === undefined ? undefined : trace.startMs + trace.durationMs
  return {
    trace_id: trace.traceId,
    ...(trace.rootSpanId ? { root_span_id: trace.rootSpanId } : {}),
    tool_span_ids: trace.toolCalls.map((c) => c.spanId ?? ''),
    start_ms: trace.startMs,
    ...(end !== undefined ? { end_ms: end } : {}),
    unscorable: Object.fromEntries(unscorableMetrics(trace.missing)),
  }
}

/** @example const monitor = createOtlpMonitor({ store, createEngine, appConfig: () => ({}), assemblerLimits }) */
export function createOtlpMonitor(options: OtlpMonitorOptions): OtlpMonitor {
  const now = options.now ?? Date.now
  const limits = options.limits ?? DEFAULT_LIMITS
  const bounds: JsonBounds = { maxJsonDepth: limits.maxJsonDepth, maxStringLength: limits.maxStringLength }
  const idleMs = options.conversationIdleMs ?? DEFAULT_CONVERSATION_IDLE_MS
  const log = options.log ?? ((m: string) => console.error(m))
  const assemblers = new Map<string, SpanAssembler>()
  /** Conversations with a trace pushed and not yet ended: session id -> last trace time (host clock). */
  const times = options.conversations ?? memoryConversationTimes()
  const active = new Map<string, number>(times.load())
  const caps = options.sessionCaps ?? DEFAULT_OTLP_SESSION_CAPS
  const counted = options.dropped ?? (() => {})
  /** Open conversations per tenant ('' in open mode), for the per-tenant cap. */
  const perTenant = new Map<string, number>()
  const tenantOfId = (id: string) => (id.includes(':') ? id.slice(0, id.indexOf(':')) : '')
  const bump = (id: string, by: number) => {
    const key = tenantOfId(id)
    const n = (perTenant.get(key) ?? 0) + by
    if (n > 0) perTenant.set(key, n)
    else perTenant.delete(key)
  }
  for (const id of active.keys()) bump(id, 1)
  const seen = (id: string) => {
    if (options.endsConversations === false) return
    const t = now()
    if (!active.has(id)) bump(id, 1)
    active.set(id, t)
    times.touch(id, t)
  }
  const forget = (id: string) => {
    if (active.delete(id)) bump(id, -1)
    times.remove(id)
  }
  const yieldTurn = options.pause ?? nextMacrotask
  const sliceClock = options.sliceClock ?? (() => performance.now())
  const sliceMs = options.sliceMs ?? MAX_TURN_SLICE_MS
  // When the code running now got the loop back (every pause notes it): a push is made to wait for
  // the next turn once this turn has run sliceMs, whichever request's slices ran in it.
  let turnStartedAt = sliceClock()
  const pause = async () => {
    await yieldTurn()
    turnStartedAt = sliceClock()
  }
  // Traces are pushed one at a time, in order, so two batches never interleave one session's events.
  let queue: Promise<unknown> = Promise.resolve()

  const held = heldBytes(
    options.maxTenantHeldBytes ?? DEFAULT_OTLP_MAX_TENANT_HELD_BYTES,
    options.store.bytes,
    options.assemblerLimits,
    now,
  )
  /** The assembler's updates, with what completed noted for the held bytes (evicted traces are let go at once). */
  const noted = (tenant: string | undefined, updates: TraceUpdate[]): TraceUpdate[] => {
    for (const u of updates) if (u.completed) held.completed(tenant ?? '', u.trace.traceId, u.completed === 'evicted')
    return updates
  }

  const assemblerOf = (tenant: string | undefined): SpanAssembler => {
    const key = tenant ?? ''
    let assembler = assemblers.get(key)
    if (!assembler) assemblers.set(key, assembler = createSpanAssembler({ bounds, now, limits: options.assemblerLimits }))
    return assembler
  }

  const delivery = options.delivery ?? storeDelivery(options.store, options.createEngine, limits)

  // Every entry is an open trace of some tenant's assembler (dropped when it completes), and each
  // assembler holds at most maxOpenTraces, completing the oldest past it: this bound never bites
  // before the assemblers' own.
  const early = earlyPushes(() => (assemblers.size + 1) * (options.assemblerLimits.maxOpenTraces + 1))

  const specOf = (tenant: string | undefined, trace: TraceInvocation): SessionSpec => {
    const app = options.appConfig(trace.appName)
    return {
      session_id: otlpSessionId(tenant, conversationKey(trace)),
      ...(app.eval_config !== undefined ? { eval_config: app.eval_config } : {}),
      ...(app.eval_case !== undefined ? { eval_case: app.eval_case } : {}),
      ...(tenant !== undefined ? { tenant } : {}),
      ...(trace.appName !== undefined ? { app_name: trace.appName } : {}),
    }
  }
  const marked = (events: AdkEvent[], at: number, trace: TraceInvocation) =>
    events.map((e, i) => (i === at ? { ...e, [TRACE_MARK_KEY]: traceMark(trace) } : e))

  /**
   * Why a trace may not open its conversation's session now, or undefined (the session is open
   * already, or both caps leave room). `opened` counts the sessions this batch opened.
   */
  const capRefusal = (
    sessionId: string,
    opened: { count: number },
  ): { reason: OtlpDropReason; limit: string; message: string } | undefined => {
    if (active.has(sessionId)) return undefined
    if (opened.count >= caps.maxNewSessionsPerRequest) {
      const limit = 'EVALSTREAM_OTLP_MAX_NEW_SESSIONS_PER_REQUEST'
      return {
        reason: 'request_session_cap',
        limit,
        message:
          `this request already opened ${caps.maxNewSessionsPerRequest} conversation sessions (${limit}); send the rest in later requests`,
      }
    }
    const open = perTenant.get(tenantOfId(sessionId)) ?? 0
    if (open >= caps.maxSessionsPerTenant) {
      const limit = 'EVALSTREAM_OTLP_MAX_SESSIONS_PER_TENANT'
      return {
        reason: 'tenant_session_cap',
        limit,
        message:
          `${open} monitored conversations are open for this tenant (${limit} = ${caps.maxSessionsPerTenant}); a new one opens when one ends (EVALSTREAM_OTLP_CONVERSATION_IDLE_MS)`,
      }
    }
    return undefined
  }

  /** The settled pieces of an open trace, scored now. */
  const pushEarly = async (
    tenant: string | undefined,
    trace: TraceInvocation,
    outcome: OtlpIngestOutcome,
    opened: { count: number },
  ): Promise<void> => {
    const spec = specOf(tenant, trace)
    // No room for a new session now: the trace stays held, and its completion asks again.
    if (capRefusal(spec.session_id, opened)) return
    const key = `${tenant ?? ''}\u0000${trace.traceId}`
    const events = early.next(key, spec.session_id, trace)
    if (events.length === 0) return
    const first = events[0] === trace.events[0]
    const isNew = !active.has(spec.session_id)
    const refused = await delivery.invocation(spec.session_id, spec, first ? marked(events, 0, trace) : events, false)
    if (refused !== undefined) outcome.dropped.push(`trace ${trace.traceId}: ${refused}`)
    else {
      if (isNew) opened.count += 1
      seen(spec.session_id)
    }
  }

  const push = async (
    tenant: string | undefined,
    trace: TraceInvocation,
    outcome: OtlpIngestOutcome,
    opened: { count: number },
  ): Promise<void> => {
    const spec = specOf(tenant, trace)
    const drop = (reason: OtlpDropReason, why: string) => {
      counted(reason)
      outcome.dropped.push(`trace ${trace.traceId}: ${why}`)
    }
    // Nothing an invocation is made of: no session is opened for it.
    if (trace.events.length === 0) {
      early.rest(`${tenant ?? ''}\u0000${trace.traceId}`, spec.session_id, trace)
      return drop('nothing_to_score', 'no model or user content to score')
    }
    if (trace.conversationId === undefined && trace.events[0]?.author !== 'user') {
      return drop('nothing_to_score', 'no conversation id and no user message: nothing to score as an invocation; no session opened')
    }
    const cap = capRefusal(spec.session_id, opened)
    if (cap) {
      early.rest(`${tenant ?? ''}\u0000${trace.traceId}`, spec.session_id, trace)
      outcome.refused.push({ traceId: trace.traceId, limit: cap.limit, message: cap.message })
      return drop(cap.reason, cap.message)
    }
    const isNew = !active.has(spec.session_id)
    const rest = early.rest(`${tenant ?? ''}\u0000${trace.traceId}`, spec.session_id, trace)
    if ('error' in rest) return drop('not_taken', rest.error)
    // The mark goes on the first event, and again on the last when earlier pieces went without the final one.
    const events = rest.early ? marked(rest.events, rest.events.length - 1, trace) : marked(rest.events, 0, trace)
    const refused = await delivery.invocation(spec.session_id, spec, events, true)
    if (refused !== undefined) return drop('not_taken', refused)
    if (isNew) opened.count += 1
    seen(spec.session_id)
    outcome.invocations += 1
  }

  const settle = (tenant: string | undefined, updates: TraceUpdate[], opened = { count: 0 }): Promise<OtlpIngestOutcome> => {
    const run = queue.then(async () => {
      const outcome: OtlpIngestOutcome = { traces: updates.length, invocations: 0, dropped: [], refused: [] }
      let pushed = 0
      for (const update of updates) {
        if (pushed === OTLP_UPDATES_PER_SLICE || (pushed > 0 && sliceClock() - turnStartedAt >= sliceMs)) {
          await pause()
          pushed = 0
        }
        pushed += 1
        if (update.late) {
          counted('late')
          outcome.dropped.push(`trace ${update.trace.traceId}: spans after the trace was scored are not scored again`)
        } else {
          const step = update.completed ? push : pushEarly
          await step(tenant, update.trace, outcome, opened).catch((e) =>
            outcome.dropped.push(`trace ${update.trace.traceId}: ${(e as Error).message}`)
          )
        }
      }
      return outcome
    })
    queue = run.catch(() => undefined)
    return run
  }

  /** A request's (or a tick's) dropped traces: the first few by name, the rest as one line, not one per trace. */
  const logDrops = (outcome: OtlpIngestOutcome): OtlpIngestOutcome => {
    for (const d of outcome.dropped.slice(0, LOGGED_DROPS)) log(`evalstream: OTLP ${d}`)
    if (outcome.dropped.length > LOGGED_DROPS) {
      log(
        `evalstream: OTLP and ${
          outcome.dropped.length - LOGGED_DROPS
        } more traces dropped in this batch (evalstream_otlp_traces_dropped_total)`,
      )
    }
    return outcome
  }

  const endIdle = async (): Promise<void> => {
    const t = now()
    for (const [id, at] of active) {
      if (t - at < idleMs) continue
      forget(id)
      await delivery.end(id)
    }
  }

  const add = (total: OtlpIngestOutcome, part: OtlpIngestOutcome) => {
    total.traces += part.traces
    total.invocations += part.invocations
    total.dropped.push(...part.dropped)
    total.refused.push(...part.refused)
  }
  /**
   * Each tenant's completions, taken `max` at a time with the loop given back in between (until a
   * take returns fewer); one session budget per tenant, as for one request.
   */
  const each = async (take: (a: SpanAssembler, max: number) => TraceUpdate[], max = Infinity): Promise<OtlpIngestOutcome> => {
    const total: OtlpIngestOutcome = { traces: 0, invocations: 0, dropped: [], refused: [] }
    for (const [key, assembler] of assemblers) {
      const tenant = key === '' ? undefined : key
      const opened = { count: 0 }
      for (let first = true;; first = false) {
        if (!first) await pause()
        const updates = take(assembler, max)
        add(total, await settle(tenant, noted(tenant, updates), opened))
        if (updates.length < max) break
      }
    }
    // Every held trace looked at, OTLP_ITEMS_MEASURED_PER_SLICE to a turn (a flood holds thousands).
    for (const _ of held.sweepSteps(OTLP_ITEMS_MEASURED_PER_SLICE)) await pause()
    return logDrops(total)
  }
  /** One request's items in slices, a turn of the event loop given back between them; one session budget for all. */
  const inSlices = async <T extends OtlpSpan | OtlpLogRecord>(
    items: readonly T[],
    take: (slice: readonly T[]) => TraceUpdate[],
    tenant: string | undefined,
  ) => {
    const total: OtlpIngestOutcome = { traces: 0, invocations: 0, dropped: [], refused: [] }
    // Measured in slices too: sizing 10,000 spans' attributes is tens of ms.
    const sizes: ItemSizes = { byTrace: new Map(), total: 0 }
    for (let at = 0; at < items.length; at += OTLP_ITEMS_MEASURED_PER_SLICE) {
      if (at > 0) await pause()
      measureItems(items.slice(at, at + OTLP_ITEMS_MEASURED_PER_SLICE), sizes)
    }
    const overloaded = held.charge(tenant ?? '', sizes)
    if (overloaded) return { ...total, overloaded }
    const opened = { count: 0 }
    try {
      for (let at = 0; at < items.length || at === 0; at += OTLP_ITEMS_PER_SLICE) {
        if (at > 0) await pause()
        const slice = items.slice(at, at + OTLP_ITEMS_PER_SLICE)
        // Each trace noted as held with the slice that first has it, not all the request's at once.
        held.hold(tenant ?? '', slice, sizes)
        add(total, await settle(tenant, noted(tenant, take(slice)), opened))
      }
    } finally {
      // Should a slice throw, the charged bytes of the traces not reached are still noted (and let go by the sweep).
      if (sizes.byTrace.size > 0) held.hold(tenant ?? '', [...sizes.byTrace.keys()].map((traceId) => ({ traceId })), sizes)
    }
    return logDrops(total)
  }

  return {
    addSpans: (tenant, spans) => inSlices(spans, (slice) => assemblerOf(tenant).addSpans(slice), tenant),
    addLogs: (tenant, logs) => inSlices(logs, (slice) => assemblerOf(tenant).addLogs(slice), tenant),
    async tick() {
      const outcome = await each((a, max) => a.tick(max), OTLP_ITEMS_PER_SLICE)
      await (queue = queue.then(endIdle).catch((e) => log(`evalstream: ending idle OTLP conversations: ${(e as Error).message}`)))
      return outcome
    },
    flush: () => each((a) => a.flush()),
    openTraces: () => [...assemblers.values()].reduce((n, a) => n + a.size(), 0),
    activeConversations: () => active.size,
  }
}

/**
 * Delivery into a session of `store`: found or created with `spec`, the events fed through the
 * session feed (every per-session limit), then the invocation completed.
 */
export function storeDelivery(store: SessionStore, createEngine: EngineFactory, limits: Limits): TraceDelivery {
  const sessionFor = async (spec: SessionSpec): Promise<HostedSession | string> => {
    const id = spec.session_id
    const found = await store.get(id, createEngine)
    if (found) return found.spec.tenant === spec.tenant ? found : `session '${id}' belongs to another tenant`
    const created = await store.create(spec, createEngine)
    if (created.ok) return created.session
    // Another batch created it meanwhile: take that one.
    if (created.problem.code === 'session_exists') return (await store.get(id, createEngine)) ?? created.problem.detail
    return created.problem.detail
  }
  return {
    async invocation(_id, spec, events, complete) {
      const session = await sessionFor(spec)
      if (typeof session === 'string') return session
      if (session.ended) return `conversation session '${session.id}' has ended`
      const feed = feedSession(session, 'json', limits)
      for (const event of events) feed.pushEvent({ index: session.recordedEvents, event, raw: event })
      if (feed.stopped) return feed.stopped.problem.detail
      if (complete) session.completeInvocation()
      return undefined
    },
    async end(id) {
      const session = await store.get(id, createEngine)
      if (session && !session.ended) await session.end()
    },
  }
}

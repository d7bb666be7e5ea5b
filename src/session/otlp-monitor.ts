/**
 * Production agents monitored from their own OpenTelemetry: decoded spans and log records go to a
 * span assembler per tenant (trace ids are the client's word, so tenants never share one), and each
 * trace becomes one invocation of the session its conversation maps to, fed through the session
 * feed (every per-session limit holds) so its results stream, index and export like any session's.
 * Its settled pieces are pushed as they arrive (otlp-early.ts); the rest when the trace completes:
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
  type OtlpLogRecord,
  type OtlpSpan,
  type SpanAssembler,
  type TraceInvocation,
  type TraceUpdate,
  unscorableMetrics,
} from '../otlp/index.ts'
import { feedSession } from './feed.ts'
import type { EngineFactory, HostedSession } from './session.ts'
import type { SessionStore } from './store.ts'
import { TRACE_MARK_KEY, type TraceMark } from './traced-engine.ts'
import { earlyPushes } from './otlp-early.ts'
import { type ConversationTimes, memoryConversationTimes } from './otlp-conversations.ts'
import type { AdkEvent } from '../adk/event.ts'
import { otlpSessionId } from './otlp-session-id.ts'

export { otlpSessionId } from './otlp-session-id.ts'

/** A conversation with no new trace for this long is ended (its case result is emitted). */
export const DEFAULT_CONVERSATION_IDLE_MS = 30 * 60 * 1000

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
  /** Where the conversations' last trace times are kept (survives a restart); in memory when absent. */
  conversations?: ConversationTimes
  now?: () => number
  log?: (message: string) => void
}

export type OtlpIngestOutcome = { traces: number; invocations: number; dropped: string[] }

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

/** The trace mark its first event carries (traced-engine.ts). */
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
  const seen = (id: string) => {
    const t = now()
    active.set(id, t)
    times.touch(id, t)
  }
  // Traces are pushed one at a time, in order, so two batches never interleave one session's events.
  let queue: Promise<unknown> = Promise.resolve()

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

  /** The settled pieces of an open trace, scored now. */
  const pushEarly = async (tenant: string | undefined, trace: TraceInvocation, outcome: OtlpIngestOutcome): Promise<void> => {
    const spec = specOf(tenant, trace)
    const key = `${tenant ?? ''}\u0000${trace.traceId}`
    const events = early.next(key, spec.session_id, trace)
    if (events.length === 0) return
    const first = events[0] === trace.events[0]
    const refused = await delivery.invocation(spec.session_id, spec, first ? marked(events, 0, trace) : events, false)
    if (refused !== undefined) outcome.dropped.push(`trace ${trace.traceId}: ${refused}`)
    else seen(spec.session_id)
  }

  const push = async (tenant: string | undefined, trace: TraceInvocation, outcome: OtlpIngestOutcome): Promise<void> => {
    const spec = specOf(tenant, trace)
    const rest = early.rest(`${tenant ?? ''}\u0000${trace.traceId}`, spec.session_id, trace)
    if ('error' in rest) return void outcome.dropped.push(`trace ${trace.traceId}: ${rest.error}`)
    if (trace.events.length === 0) return void outcome.dropped.push(`trace ${trace.traceId}: no model or user content to score`)
    // The mark goes on the first event, and again on the last when earlier pieces went without the final one.
    const events = rest.early ? marked(rest.events, rest.events.length - 1, trace) : marked(rest.events, 0, trace)
    const refused = await delivery.invocation(spec.session_id, spec, events, true)
    if (refused !== undefined) return void outcome.dropped.push(`trace ${trace.traceId}: ${refused}`)
    seen(spec.session_id)
    outcome.invocations += 1
  }

  const settle = (tenant: string | undefined, updates: TraceUpdate[]): Promise<OtlpIngestOutcome> => {
    const run = queue.then(async () => {
      const outcome: OtlpIngestOutcome = { traces: updates.length, invocations: 0, dropped: [] }
      for (const update of updates) {
        if (update.late) outcome.dropped.push(`trace ${update.trace.traceId}: spans after the trace was scored are not scored again`)
        else {
          const step = update.completed ? push : pushEarly
          await step(tenant, update.trace, outcome).catch((e) =>
            outcome.dropped.push(`trace ${update.trace.traceId}: ${(e as Error).message}`)
          )
        }
      }
      for (const d of outcome.dropped) log(`evalstream: OTLP ${d}`)
      return outcome
    })
    queue = run.catch(() => undefined)
    return run
  }

  const endIdle = async (): Promise<void> => {
    const t = now()
    for (const [id, at] of active) {
      if (t - at < idleMs) continue
      active.delete(id)
      times.remove(id)
      await delivery.end(id)
    }
  }

  const each = async (take: (a: SpanAssembler) => TraceUpdate[]): Promise<OtlpIngestOutcome> => {
    const total: OtlpIngestOutcome = { traces: 0, invocations: 0, dropped: [] }
    for (const [key, assembler] of assemblers) {
      const part = await settle(key === '' ? undefined : key, take(assembler))
      total.traces += part.traces
      total.invocations += part.invocations
      total.dropped.push(...part.dropped)
    }
    return total
  }

  return {
    addSpans: (tenant, spans) => settle(tenant, assemblerOf(tenant).addSpans(spans)),
    addLogs: (tenant, logs) => settle(tenant, assemblerOf(tenant).addLogs(logs)),
    async tick() {
      const outcome = await each((a) => a.tick())
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
    if (created.problem.status === 409) return (await store.get(id, createEngine)) ?? created.problem.detail
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

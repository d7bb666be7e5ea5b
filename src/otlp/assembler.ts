/**
 * Spans (and log records) arriving out of order and in batches, assembled into ADK invocations as
 * they come. Exporters send a span when it ends, so children come before parents and a turn's
 * root comes last. Every call reports what changed per trace: the invocation as it now stands,
 * tool calls first known in this batch (so a wrong call can be scored the moment its span
 * arrives), and completion, once: when the root span arrives, or when no span came for the grace
 * period (`tick`, driven by the injected clock), or when the trace was evicted to stay in bounds.
 *
 * State is bounded: at most `maxOpenTraces` traces (least recently touched evicted first, an
 * unfinished one completed as it stands), `maxSpansPerTrace` items per trace (more are dropped and
 * counted), and a completed trace is forgotten `idleMs` after its last span.
 */
import type { JsonBounds } from '../adk/json-bounds.ts'
import { type AssemblerLimits, DEFAULT_ASSEMBLER_LIMITS } from './limits.ts'
import type { OtlpLogRecord, OtlpSpan } from './model.ts'
import { isRootSpan } from './span-tree.ts'
import { type TracedToolCall, type TraceInvocation, traceToInvocation } from './trace-to-events.ts'

export type CompletionReason = 'root' | 'grace' | 'evicted' | 'flush'

export type TraceUpdate = {
  trace: TraceInvocation
  /** Calls first known in this batch, in model order, each with its `execute_tool` span when known. */
  newToolCalls: TracedToolCall[]
  /** Set on the one update that completes the invocation. */
  completed?: CompletionReason
  /** The trace had already completed: this update revises it (late spans). */
  late: boolean
}

export type AssemblerOptions = {
  /** Bounds on the JSON inside attributes (the event limits). */
  bounds: JsonBounds
  /** Milliseconds, any origin: drives the grace period and idle eviction. */
  now: () => number
  limits?: Partial<AssemblerLimits>
}

export type SpanAssembler = {
  addSpans(spans: readonly OtlpSpan[]): TraceUpdate[]
  addLogs(logs: readonly OtlpLogRecord[]): TraceUpdate[]
  /**
   * Completes traces whose grace ran out and forgets idle completed ones; at most `max` completed
   * per call (mapping one costs a fraction of a ms: a caller completes a thousand over several turns).
   */
  tick(max?: number): TraceUpdate[]
  /** Completes every open trace (end of a file, shutdown). */
  flush(): TraceUpdate[]
  /** Traces held (open and recently completed). */
  size(): number
  /** Spans and log records dropped past `maxSpansPerTrace`, and traces evicted before completing. */
  dropped(): { items: number; evictedOpen: number }
}

type TraceState = {
  traceId: string
  spans: Map<string, OtlpSpan>
  logs: OtlpLogRecord[]
  touchedAt: number
  completed: boolean
  reported: Set<string>
  /**
   * An open trace as last mapped, until a span or log record is added: an open trace is mapped when
   * it gains spans and again when it completes, and a trace evicted or past its grace with nothing
   * new (every trace of a flood of single spans) maps to the same; mapping is a pure function of the
   * spans. Bounded by maxOpenTraces; dropped at completion.
   */
  mapped: TraceInvocation | undefined
}

/** Identity of a call across re-mappings: its id, else its place and name. */
function callKey(traced: TracedToolCall, index: number): string {
  return traced.call.id ? `id:${traced.call.id}` : `#${index}:${traced.call.name}`
}

/**
 * @example
 * const assembler = createSpanAssembler({ bounds, now: () => clock.now })
 * for (const update of assembler.addSpans(decoded.spans)) if (update.completed) score(update.trace)
 */
export function createSpanAssembler(options: AssemblerOptions): SpanAssembler {
  const limits: AssemblerLimits = { ...DEFAULT_ASSEMBLER_LIMITS, ...options.limits }
  const traces = new Map<string, TraceState>() // insertion order = least recently touched first
  let droppedItems = 0
  let evictedOpen = 0

  function update(state: TraceState, completed?: CompletionReason): TraceUpdate {
    const late = state.completed && completed === undefined
    const trace = state.mapped ?? traceToInvocation(state.traceId, [...state.spans.values()], state.logs, options.bounds)
    const newToolCalls = trace.toolCalls.filter((traced, i) => {
      const key = callKey(traced, i)
      if (state.reported.has(key)) return false
      state.reported.add(key)
      return true
    })
    if (completed) state.completed = true
    // A completed trace is mapped again only if late spans come (and change it): not kept meanwhile.
    state.mapped = state.completed ? undefined : trace
    const out: TraceUpdate = { trace, newToolCalls, late }
    if (completed) out.completed = completed
    return out
  }

  function stateFor(traceId: string, out: TraceUpdate[]): TraceState {
    let state = traces.get(traceId)
    if (state) traces.delete(traceId)
    else {
      while (traces.size >= limits.maxOpenTraces) {
        const [oldestId, oldest] = traces.entries().next().value!
        traces.delete(oldestId)
        if (!oldest.completed && oldest.spans.size > 0) {
          evictedOpen++
          out.push(update(oldest, 'evicted'))
        }
      }
      state = { traceId, spans: new Map(), logs: [], touchedAt: 0, completed: false, reported: new Set(), mapped: undefined }
    }
    state.touchedAt = options.now()
    traces.set(traceId, state) // most recently touched last
    return state
  }

  function room(state: TraceState): boolean {
    if (state.spans.size + state.logs.length < limits.maxSpansPerTrace) return true
    droppedItems++
    return false
  }

  function add<T extends { traceId: string }>(items: readonly T[], put: (state: TraceState, item: T) => boolean): TraceUpdate[] {
    const out: TraceUpdate[] = []
    const touched = new Map<string, { state: TraceState; rootArrived: boolean }>()
    for (const item of items) {
      if (!item.traceId) continue
      const state = stateFor(item.traceId, out)
      const entry = touched.get(item.traceId) ?? { state, rootArrived: false }
      entry.state = state
      if (room(state)) {
        state.mapped = undefined
        if (put(state, item)) entry.rootArrived = true
      }
      touched.set(item.traceId, entry)
    }
    for (const { state, rootArrived } of touched.values()) {
      if (!traces.has(state.traceId)) continue // evicted within this batch: already reported
      if (state.spans.size === 0) continue // log records alone: nothing to map until a span comes
      out.push(update(state, rootArrived && !state.completed ? 'root' : undefined))
    }
    return out
  }

  return {
    addSpans: (spans) =>
      add(spans, (state, span) => {
        // A retried export repeats spans: the span id decides.
        state.spans.set(span.spanId, span)
        return isRootSpan(span)
      }),
    addLogs: (logs) =>
      add(logs, (state, log) => {
        state.logs.push(log)
        return false
      }),
    tick(max = Infinity) {
      const out: TraceUpdate[] = []
      const now = options.now()
      for (const [traceId, state] of [...traces]) {
        if (out.length >= max) break
        const idle = now - state.touchedAt
        if (state.spans.size === 0 && idle >= limits.graceMs) traces.delete(traceId) // log records whose spans never came
        else if (!state.completed && idle >= limits.graceMs) out.push(update(state, 'grace'))
        else if (state.completed && idle >= limits.idleMs) traces.delete(traceId)
      }
      return out
    },
    flush() {
      const out: TraceUpdate[] = []
      for (const state of traces.values()) if (!state.completed && state.spans.size > 0) out.push(update(state, 'flush'))
      return out
    },
    size: () => traces.size,
    dropped: () => ({ items: droppedItems, evictedOpen }),
  }
}

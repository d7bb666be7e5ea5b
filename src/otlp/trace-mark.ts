/**
 * What an OTLP-born invocation needs beyond its ADK events, carried on its first event as
 * `evalstream_trace` (an extra key the ADK event schema keeps): the trace and span ids results are
 * written back to, the trace's own start and end (invocation_duration_v1 is the root span's
 * duration, not the time the spans took to arrive), and the metrics its missing parts rule out.
 * An invocation scored in pieces (src/otlp-monitor/early.ts) carries the mark again, complete, on its last event.
 * Because it rides on a journaled event, a session rebuilt by replay after a restart or eviction
 * reads the same answers: the engine's `unscorable` and clock give what they gave the first time.
 * Only the monitor sets it: the session feed rejects a decoded event carrying it (feed.ts), and a
 * session outside the monitor's `otlp-` namespace ignores it (its results go back to no trace).
 */
import { isRecord } from '../adk/json.ts'
import type { AdkEvent } from '../adk/event.ts'

export const TRACE_MARK_KEY = 'evalstream_trace'

export type TraceMark = {
  trace_id: string
  /** The root span (case-level and invocation results are written back to it); absent when it never arrived. */
  root_span_id?: string
  /** The `execute_tool` span of each tool call, in model order ('' where unknown). */
  tool_span_ids: string[]
  start_ms: number
  /** Root end; absent when the root never arrived (no duration is measured then). */
  end_ms?: number
  /** Metric name -> why it cannot be scored on this invocation. */
  unscorable: Record<string, string>
}

/** Where a session's results go back to in the agent's trace, per invocation id. */
export type TraceLinks = {
  record(sessionId: string, invocationId: string, mark: TraceMark): void
  lookup(sessionId: string, invocationId: string): TraceMark | undefined
  /** The invocation of this session recorded last (the case result is written to its root). */
  last(sessionId: string): TraceMark | undefined
  forget(sessionId: string): void
}

/** At most this many sessions' links are kept (oldest dropped first): a lookup miss only loses the ids. */
export const MAX_LINKED_SESSIONS = 10_000
/** At most this many invocations' links per session. */
export const MAX_LINKED_INVOCATIONS = 1_000

/** @example const links = createTraceLinks(); links.record('s', 'e-1', mark) */
export function createTraceLinks(maxSessions = MAX_LINKED_SESSIONS): TraceLinks {
  const bySession = new Map<string, Map<string, TraceMark>>()
  return {
    record(sessionId, invocationId, mark) {
      let marks = bySession.get(sessionId)
      if (marks) bySession.delete(sessionId)
      else marks = new Map()
      bySession.set(sessionId, marks) // most recent last
      marks.delete(invocationId)
      marks.set(invocationId, mark)
      if (marks.size > MAX_LINKED_INVOCATIONS) marks.delete(marks.keys().next().value!)
      if (bySession.size > maxSessions) bySession.delete(bySession.keys().next().value!)
    },
    lookup: (sessionId, invocationId) => bySession.get(sessionId)?.get(invocationId),
    last(sessionId) {
      const marks = bySession.get(sessionId)
      return marks ? [...marks.values()].at(-1) : undefined
    },
    forget: (sessionId) => void bySession.delete(sessionId),
  }
}

/** The mark an event carries, when it is a well-formed one. */
export function traceMarkOf(event: AdkEvent): TraceMark | undefined {
  const mark = (event as Record<string, unknown>)[TRACE_MARK_KEY]
  if (!isRecord(mark) || typeof mark.trace_id !== 'string' || typeof mark.start_ms !== 'number') return undefined
  const unscorable: Record<string, string> = {}
  if (isRecord(mark.unscorable)) { for (const [k, v] of Object.entries(mark.unscorable)) if (typeof v === 'string') unscorable[k] = v }
  return {
    trace_id: mark.trace_id,
    ...(typeof mark.root_span_id === 'string' ? { root_span_id: mark.root_span_id } : {}),
    tool_span_ids: Array.isArray(mark.tool_span_ids) ? mark.tool_span_ids.map((s) => (typeof s === 'string' ? s : '')) : [],
    start_ms: mark.start_ms,
    ...(typeof mark.end_ms === 'number' ? { end_ms: mark.end_ms } : {}),
    unscorable,
  }
}

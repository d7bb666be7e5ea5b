/**
 * Scoring a trace's pieces before it completes. Exporters send a turn's child spans (model calls,
 * tool calls) a batch before its root, so most of an invocation is known early: its events are
 * pushed into the session as soon as they are settled, and a wrong tool call is a verdict then,
 * not when the root arrives. Settled means: the conversation is known, the user's message is
 * known (it comes first), and the event is not the last one mapped so far (the last may still be
 * revised: a final response, or tool results still arriving). The rest is pushed when the trace
 * completes, with the trace's final mark on its last event (traced-engine.ts reads it).
 *
 * The user's message pushed early is timed by the earliest span then known (the root, which starts a
 * few ms earlier, arrives last), so its invocation's creation_timestamp can be that much later than
 * a completion-only push would give; no score reads it.
 *
 * Mapping is a pure function of the spans, so in the order exporters deliver spans (by end time)
 * what was pushed stays a prefix of every later mapping. Should a later mapping disagree with what
 * was pushed (spans from several processes, out of end order), the trace is not pushed further and
 * its completion is reported as dropped: events already scored cannot be taken back.
 */
import type { AdkEvent } from '../adk/event.ts'
import type { TraceInvocation } from '../otlp/index.ts'

/** Traces with pieces pushed and not completed, at most (oldest forgotten first), unless the caller bounds it. */
export const MAX_EARLY_TRACES = 10_000

type Sent = { sessionId: string; events: string[]; diverged: boolean }

export type EarlyPushes = {
  /** The events to push now for an open trace routed to `sessionId` (none when nothing new is settled). */
  next(key: string, sessionId: string, trace: TraceInvocation): AdkEvent[]
  /** At completion: the events not pushed yet, or why the trace cannot be completed consistently. */
  rest(key: string, sessionId: string, trace: TraceInvocation): { events: AdkEvent[]; early: boolean } | { error: string }
}

/**
 * An event as compared across mappings, without its timestamp: the user's message is timed by the
 * trace's start, which is the earliest span's until the root arrives (a few ms later than the root's).
 */
const key = (event: AdkEvent) => JSON.stringify({ ...event, timestamp: undefined })

const same = (sent: readonly string[], now: readonly string[]) => sent.length <= now.length && sent.every((s, i) => s === now[i])

/** @example const early = earlyPushes(); const events = early.next(key, sessionId, update.trace) */
export function earlyPushes(max: () => number = () => MAX_EARLY_TRACES): EarlyPushes {
  const sent = new Map<string, Sent>()
  return {
    next(traceKey, sessionId, trace) {
      if (trace.conversationId === undefined || trace.events[0]?.author !== 'user' || trace.events.length < 2) return []
      const settled = trace.events.slice(0, -1)
      const json = settled.map(key)
      const before = sent.get(traceKey)
      if (before && (before.diverged || before.sessionId !== sessionId || !same(before.events, json))) {
        before.diverged = true
        return []
      }
      const fresh = settled.slice(before?.events.length ?? 0)
      if (fresh.length === 0) return []
      sent.delete(traceKey)
      sent.set(traceKey, { sessionId, events: json, diverged: false })
      if (sent.size > max()) sent.delete(sent.keys().next().value!)
      return fresh
    },
    rest(traceKey, sessionId, trace) {
      const before = sent.get(traceKey)
      sent.delete(traceKey)
      if (!before) return { events: trace.events, early: false }
      const json = trace.events.map(key)
      if (before.diverged || before.sessionId !== sessionId || !same(before.events, json) || json.length === before.events.length) {
        return { error: 'its spans changed events already scored (spans out of end order); the invocation is left as scored so far' }
      }
      return { events: trace.events.slice(before.events.length), early: true }
    },
  }
}

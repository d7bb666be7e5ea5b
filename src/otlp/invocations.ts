/**
 * Assembled traces as ADK sees a session: the Invocation ADK's `_convert_events_to_eval_invocations`
 * builds from one trace's events (plus the app details the trace shows), and whole files of spans
 * grouped into conversations, each an ordered list of invocations.
 */
import type { JsonBounds } from '../adk/json-bounds.ts'
import type { Invocation } from '../adk/invocation.ts'
import { eventsToInvocations } from '../core/events-to-invocations.ts'
import { createSpanAssembler } from './assembler.ts'
import type { OtlpLogRecord, OtlpSpan } from './model.ts'
import type { TraceInvocation } from './trace-to-events.ts'

/**
 * The one Invocation a trace stands for (events of one invocation id fold into one).
 * @example toAdkInvocation(trace).final_response?.parts?.[0]?.text
 */
export function toAdkInvocation(trace: TraceInvocation): Invocation {
  const built = eventsToInvocations(trace.events).find((i) => i.invocation_id === trace.invocationId) ?? {
    invocation_id: trace.invocationId,
    user_content: { role: undefined, parts: [] },
    final_response: undefined,
    intermediate_data: { invocation_events: [] },
    creation_timestamp: trace.startMs / 1000,
    rubrics: undefined,
    app_details: undefined,
  }
  // Without a user event (content capture off) the trace's start stands in for the user's message time.
  const creation = built.creation_timestamp === 0 ? trace.startMs / 1000 : built.creation_timestamp
  return { ...built, creation_timestamp: creation, app_details: trace.appDetails }
}

/** The session a trace belongs to: its conversation, or the trace alone when no span names one. */
export function conversationKey(trace: Pick<TraceInvocation, 'conversationId' | 'traceId'>): string {
  return trace.conversationId ?? `trace:${trace.traceId}`
}

export type Conversation = { conversationId: string; appName: string | undefined; traces: TraceInvocation[] }

/**
 * Every span and log record of a recording (a Collector file export) at once: conversations in
 * order of their first turn, each with its traces in start order.
 * @example tracesToConversations(spans, logs, bounds)[0].traces.map(toAdkInvocation)
 */
export function tracesToConversations(spans: readonly OtlpSpan[], logs: readonly OtlpLogRecord[], bounds: JsonBounds): Conversation[] {
  // Every trace stays until flushed: nothing is evicted or timed out while a file is read.
  const assembler = createSpanAssembler({
    bounds,
    now: () => 0,
    limits: { maxOpenTraces: Number.MAX_SAFE_INTEGER, maxSpansPerTrace: Number.MAX_SAFE_INTEGER },
  })
  const finals = new Map<string, TraceInvocation>()
  // Each update holds the whole trace as it stands, so the last one per trace is its final form.
  for (const update of [...assembler.addSpans(spans), ...assembler.addLogs(logs), ...assembler.flush()]) {
    finals.set(update.trace.traceId, update.trace)
  }
  const byConversation = new Map<string, TraceInvocation[]>()
  for (const trace of [...finals.values()].sort((a, b) => a.startMs - b.startMs || (a.traceId < b.traceId ? -1 : 1))) {
    const key = conversationKey(trace)
    byConversation.set(key, [...(byConversation.get(key) ?? []), trace])
  }
  return [...byConversation].map(([conversationId, traces]) => ({ conversationId, appName: traces[0]?.appName, traces }))
}

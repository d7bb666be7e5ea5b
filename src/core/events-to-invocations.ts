/**
 * ADK's `EvaluationGenerator.convert_events_to_eval_invocations` (spec §4.4): a session's events,
 * grouped by invocation id in first-seen order, each group folded into one Invocation.
 *
 * Two deliberate differences from ADK, both about events ADK's own eval inference never produces:
 * (a) `partial: true` events contribute nothing. ADK's inference never streams, but a streamed
 *     `/run_sse` (ADK JS, `streaming: true`) sends the text as chunks and then once more in full;
 *     counting the chunks would put every text in the invocation twice. A partial event still opens
 *     its invocation (ADK groups every event it is given), it just adds no content.
 * (b) A function-call event that is final only because it is long-running or sets
 *     `skip_summarization` stays in `intermediate_data.invocation_events` even when it is chosen as
 *     `final_response` (adk-python #5410: ADK drops it, so `tool_trajectory_avg_score` loses calls
 *     that were made). `final_response` itself is left exactly as ADK picks it (the last final
 *     event wins), so response criteria see the same text as in ADK.
 * Function-response events chosen as final (skip_summarization) are dropped as ADK does.
 *
 * Cost: a live invocation is taken as it stands each time a final response completes it, and an
 * agent may send thousands of final texts in one invocation (each completes it, the next reopens
 * it). So folding an event is O(its parts), taking the invocation is O(1), and its event list is
 * built only when someone reads it; its tool calls are counted as events arrive.
 */
import type { AdkEvent } from '../adk/event.ts'
import { isFinalResponse } from '../adk/event.ts'
import type { Content, FunctionCall } from '../adk/content.ts'
import { type Invocation, type InvocationEvent, type InvocationEvents, rememberToolCalls } from '../adk/invocation.ts'

/** `(author or "agent").lower() == "user"`: tool results (author = agent, role = user) are not user content. */
export function isUserEvent(event: AdkEvent): boolean {
  return (event.author || 'agent').toLowerCase() === 'user'
}

/** The fields of one invocation while its events are folded in; shared by batch and live building. */
export type InvocationFold = {
  invocationId: string
  userContent: Content
  timestamp: number
  /**
   * Agent events with a call, response, text or inline data part, in order. Only ever appended to
   * (or replaced by a copy, `trimFold`): an invocation taken keeps a prefix of it.
   */
  candidates: AdkEvent[]
  /** The event whose content is the final response so far (the last final event wins). */
  finalEvent: AdkEvent | undefined
  /**
   * The function calls of the candidates, in order; only ever appended to (or copied, as
   * `candidates`). These are the calls of the built invocation too: the one candidate left out of
   * its events (the final response) is left out only when it has no call (difference (b)).
   */
  calls: FunctionCall[]
}

/** An empty fold for one invocation id. @example foldEvent(newFold('inv1'), event) */
export function newFold(invocationId: string): InvocationFold {
  return {
    invocationId,
    userContent: { role: undefined, parts: [] },
    timestamp: 0,
    candidates: [],
    finalEvent: undefined,
    calls: [],
  }
}

/**
 * Fold one event into its invocation. Returns true when the event became the final-response event.
 * @example
 * const fold = newFold('inv1')
 * foldEvent(fold, { invocation_id: 'inv1', author: 'agent', content: { parts: [{ text: 'hi' }] } }) // true
 */
export function foldEvent(fold: InvocationFold, event: AdkEvent): boolean {
  if (event.partial === true) return false // difference (a)
  if (isUserEvent(event)) {
    // Newer ADK keeps the previous user content when a user event has none (None is not valid content).
    if (event.content != null) {
      fold.userContent = event.content
      fold.timestamp = event.timestamp ?? 0
    }
    return false
  }
  const parts = event.content?.parts
  if (!parts || parts.length === 0) return false
  let becameFinal = false
  if (isFinalResponse(event)) {
    fold.finalEvent = event
    becameFinal = true
  }
  if (parts.some((p) => p.function_call || p.function_response || p.text || p.inline_data)) {
    fold.candidates.push(event)
    for (const part of parts) if (part.function_call) fold.calls.push(part.function_call)
  }
  return becameFinal
}

/**
 * Cuts a completed fold's lists to their length. An array grown by pushing keeps room to grow (17
 * slots from its first push), and a completed invocation is kept for the whole session with room
 * it rarely needs. The copies hold the same prefixes, so invocations already taken are unchanged.
 * @example trimFold(fold) // once its invocation completed
 */
export function trimFold(fold: InvocationFold): void {
  fold.candidates = fold.candidates.slice()
  fold.calls = fold.calls.slice()
}

function keptAsIntermediate(event: AdkEvent, finalEvent: AdkEvent | undefined): boolean {
  if (event !== finalEvent) return true
  // difference (b): a final function-call event keeps its calls in the trajectory.
  return (event.content?.parts ?? []).some((p) => p.function_call != null)
}

/**
 * The Invocation a fold stands for right now, in O(1): it keeps the fold's candidates and calls as
 * they are now (both are only appended to, so a prefix never changes) and builds its event list the
 * first time it is read. Later events do not change an invocation already taken.
 * @example invocationOf(fold).intermediate_data.invocation_events // built on this first read
 */
export function invocationOf(fold: InvocationFold): Invocation {
  // Key order as ADK writes an Invocation; absent fields are undefined (JSON omits them).
  return {
    invocation_id: fold.invocationId,
    user_content: fold.userContent,
    final_response: fold.finalEvent?.content ?? undefined,
    intermediate_data: invocationEventsOf(fold),
    creation_timestamp: fold.timestamp,
    rubrics: undefined,
    app_details: undefined,
  }
}

function invocationEventsOf(fold: InvocationFold): InvocationEvents {
  const { candidates, finalEvent, calls } = fold
  const candidateCount = candidates.length
  const callCount = calls.length
  let events: InvocationEvent[] | undefined
  const data: InvocationEvents = {
    // An ordinary enumerable property to every reader (JSON, spread, equality), computed once.
    get invocation_events() {
      if (events) return events
      events = []
      for (let i = 0; i < candidateCount; i++) {
        const event = candidates[i]!
        if (keptAsIntermediate(event, finalEvent)) events.push({ author: event.author ?? 'agent', content: event.content ?? null })
      }
      return events
    },
    set invocation_events(value) {
      events = value
      rememberToolCalls(data, undefined) // the counted calls were those of the folded events
    },
  }
  // The fold's own array while nothing was added since (the usual case: a criterion reads the
  // calls right after the completion), so a long invocation is not copied at every completion.
  rememberToolCalls(data, () => (calls.length === callCount ? calls : calls.slice(0, callCount)))
  return data
}

/**
 * Events (as `/run_sse` streams them or a session stores them) -> ADK invocations.
 * @example
 * eventsToInvocations([
 *   { invocation_id: 'inv1', author: 'user', content: { parts: [{ text: 'Hello' }] } },
 *   { invocation_id: 'inv1', author: 'agent', content: { parts: [{ text: 'Hi there!' }] } },
 * ]) // [{ invocation_id: 'inv1', user_content: …'Hello', final_response: …'Hi there!', … }]
 */
export function eventsToInvocations(events: readonly AdkEvent[]): Invocation[] {
  // Group first, then walk each group, as ADK does: a late event of an earlier invocation joins it.
  const groups = new Map<string, AdkEvent[]>()
  for (const event of events) {
    const id = event.invocation_id ?? ''
    const group = groups.get(id)
    if (group) group.push(event)
    else groups.set(id, [event])
  }
  const invocations: Invocation[] = []
  for (const [id, group] of groups) {
    const fold = newFold(id)
    for (const event of group) foldEvent(fold, event)
    invocations.push(invocationOf(fold))
  }
  return invocations
}

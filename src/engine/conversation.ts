/**
 * A completed invocation's events are most of a live session's heap, and only three things read
 * them again: a late event of that invocation (to fold it and rebuild its criteria's runs), the
 * case result (its actual invocations) and a closing step (the whole conversation). When the host
 * keeps every event anyway (a session's journal, `EngineOptions.conversation`), the engine lets a
 * completed invocation's events go and reads them back for those three.
 *
 * The host's events are exactly the ones pushed, in push order, so the first n of them are the
 * session as the engine had it after n pushes; later ones (the event being pushed now, and during
 * a replay the rest of the journal) are not read.
 */
import type { AdkEvent } from '../adk/event.ts'
import type { Invocation } from '../adk/invocation.ts'
import { eventsToInvocations } from '../core/events-to-invocations.ts'
import type { InvocationBuilder } from '../core/invocation-builder.ts'
import type { InvocationState } from './invocation-state.ts'

export type Conversation = () => Iterable<AdkEvent>

/** The first `count` events of the conversation (a read stops there: it may be a database query). */
function* firstEvents(conversation: Conversation, count: number): Generator<AdkEvent> {
  if (count <= 0) return
  let n = 0
  for (const event of conversation()) {
    yield event
    if (++n >= count) return
  }
}

/**
 * Lets a released invocation's events go, in the engine and in the builder, and says whether it
 * did. An invocation that kept its runs (too many events, a criterion that threw) keeps its events too.
 * @example releaseRuns(invocation); forgetEvents(invocation, builder)
 */
export function forgetEvents(invocation: InvocationState, builder: InvocationBuilder): boolean {
  if (!invocation.released || !invocation.events || invocation.forgotten) return false
  if (!builder.forget(invocation.id)) return false
  invocation.events = undefined
  invocation.forgotten = true
  return true
}

/**
 * Reads a forgotten invocation's events back (among the first `pushed` of the conversation) and
 * gives them to the builder and the invocation: it is as it was before it was forgotten.
 * @example recallEvents(conversation, pushedBefore, invocation, builder)
 */
export function recallEvents(conversation: Conversation, pushed: number, invocation: InvocationState, builder: InvocationBuilder): void {
  if (!invocation.forgotten) return
  const events: AdkEvent[] = []
  for (const event of firstEvents(conversation, pushed)) {
    if ((event.invocation_id ?? '') === invocation.id) events.push(event)
  }
  builder.restore(invocation.id, events)
  invocation.events = events
  invocation.forgotten = false
}

/**
 * Every invocation of the first `pushed` events, built as ADK builds them (and as the builder
 * does: `invocations()` equals `eventsToInvocations` of the same events).
 * @example conversationInvocations(conversation, pushed).length
 */
export function conversationInvocations(conversation: Conversation, pushed: number): Invocation[] {
  return eventsToInvocations([...firstEvents(conversation, pushed)])
}

/**
 * `eventsToInvocations`, incrementally, for live streams. Events are pushed in arrival order; an
 * invocation opens when a new invocation id appears and completes when the next one opens or at
 * `complete()` (stream or session end). For any event sequence, `invocations()` equals
 * `eventsToInvocations(all pushed events)` exactly: both fold events with the same functions.
 *
 * A late event, for an invocation already completed, joins that invocation (ADK groups by id, not
 * by position) and is reported as `late`: whoever scored that invocation may want to know.
 *
 * A completed invocation can be `forget`-ten: its fold (its events) is let go, only its id and
 * position stay. Whoever keeps the events elsewhere (a session's journal) gives them back with
 * `restore` before a late event of it is pushed; until then it is left out of `invocation()`, and
 * `invocations()` refuses to list an incomplete session.
 */
import type { AdkEvent } from '../adk/event.ts'
import type { Invocation } from '../adk/invocation.ts'
import { foldEvent, type InvocationFold, invocationOf, newFold, trimFold } from './events-to-invocations.ts'

/** What one push (or `complete()`) changed. */
export type BuilderChange = {
  /** An invocation id seen for the first time: a new invocation is open. */
  started?: string
  /** Invocations completed by this call (the previously open one when a new id starts). */
  completed?: string[]
  /** The event belonged to an invocation that had already completed; that invocation changed. */
  late?: string
  /**
   * The event is now the final-response event of its invocation. A later final event of the
   * same invocation replaces it (ADK: the last final event wins); see `finalEventOf`.
   */
  final: boolean
}

export type InvocationBuilder = {
  push(event: AdkEvent): BuilderChange
  /** Complete the open invocation, if any. Idempotent. */
  complete(): BuilderChange
  /** The open invocation as it stands, or undefined between invocations. */
  current(): Invocation | undefined
  /** Every invocation so far (completed and open), in first-seen order. */
  invocations(): Invocation[]
  /** One invocation as it stands, by id (what a completing invocation is scored on). */
  invocation(invocationId: string): Invocation | undefined
  /** Whether an invocation with this id has completed. */
  isCompleted(invocationId: string): boolean
  /** The event whose content is the invocation's final_response right now. */
  finalEventOf(invocationId: string): AdkEvent | undefined
  /** Lets a completed invocation's events go (false, and nothing changes, for an open or unknown one). */
  forget(invocationId: string): boolean
  /** Folds a forgotten invocation again from its events, in the order they were pushed. */
  restore(invocationId: string, events: readonly AdkEvent[]): void
  /** How many invocations are forgotten now: while any is, `invocations()` cannot list them. */
  forgottenCount(): number
}

type Entry = {
  /** Undefined once forgotten (`forget`), until `restore`. */
  fold: InvocationFold | undefined
  invocationId: string
  completed: boolean
  /** Index in first-seen order. */
  position: number
  /** Changed since invocations() last listed it. */
  stale: boolean
}

/**
 * @example
 * const builder = createInvocationBuilder()
 * builder.push({ invocation_id: 'e-1', author: 'user', content: { parts: [{ text: 'hi' }] } }) // { started: 'e-1', final: false }
 * builder.push({ invocation_id: 'e-1', author: 'agent', content: { parts: [{ text: 'hello' }] } }) // { final: true }
 * builder.complete() // { completed: ['e-1'], final: false }
 */
export function createInvocationBuilder(): InvocationBuilder {
  const entries = new Map<string, Entry>()
  let open: Entry | undefined
  // The open invocation as last taken, until its next event: it is read again at each of its
  // completions (every final response) and by current(). A completed one is taken anew when read
  // (in O(1)): it is read about once, when it is scored, and keeping every invocation's copy with
  // its event list cost a live session more than the folds themselves.
  let openSnapshot: Invocation | undefined
  // invocations() is called once per completed invocation by the engine: rebuilding the whole list
  // each time made a session quadratic. The list is kept and only changed entries are re-snapshot.
  const list: Array<Invocation | undefined> = []
  let forgotten = 0
  const stale: Entry[] = []

  function snapshot(entry: Entry): Invocation | undefined {
    if (!entry.fold) return undefined
    if (entry !== open) return invocationOf(entry.fold)
    openSnapshot ??= invocationOf(entry.fold)
    return openSnapshot
  }

  function closeOpen(): string[] {
    if (!open) return []
    open.completed = true
    trimFold(open.fold!)
    const id = open.invocationId
    open = undefined
    openSnapshot = undefined
    return [id]
  }

  return {
    push(event) {
      const id = event.invocation_id ?? ''
      let entry = entries.get(id)
      const change: BuilderChange = { final: false }
      if (!entry) {
        const completed = closeOpen()
        if (completed.length > 0) change.completed = completed
        entry = { fold: newFold(id), invocationId: id, completed: false, position: entries.size, stale: false }
        entries.set(id, entry)
        open = entry
        change.started = id
      } else if (entry.completed) {
        change.late = id
      }
      if (!entry.fold) throw new Error(`invocation '${id}' was forgotten: restore its events before pushing more`)
      change.final = foldEvent(entry.fold, event)
      // Snapshots are rebuilt lazily, on the next read.
      if (entry === open) openSnapshot = undefined
      if (!entry.stale) {
        entry.stale = true
        stale.push(entry)
      }
      return change
    },
    complete() {
      const completed = closeOpen()
      return completed.length > 0 ? { completed, final: false } : { final: false }
    },
    current: () => (open ? snapshot(open) : undefined),
    invocations() {
      if (forgotten > 0) throw new Error(`${forgotten} invocation(s) were forgotten: their events are not here to list`)
      for (const entry of stale) {
        entry.stale = false
        list[entry.position] = snapshot(entry)
      }
      stale.length = 0
      return list.slice() as Invocation[]
    },
    invocation(invocationId) {
      const entry = entries.get(invocationId)
      return entry ? snapshot(entry) : undefined
    },
    isCompleted: (invocationId) => entries.get(invocationId)?.completed ?? false,
    finalEventOf: (invocationId) => entries.get(invocationId)?.fold?.finalEvent,
    forgottenCount: () => forgotten,
    forget(invocationId) {
      const entry = entries.get(invocationId)
      if (!entry?.fold || !entry.completed || entry === open) return false
      entry.fold = undefined
      // The listed snapshot holds the same events.
      list[entry.position] = undefined
      forgotten += 1
      return true
    },
    restore(invocationId, events) {
      const entry = entries.get(invocationId)
      if (!entry || entry.fold) return
      const fold = newFold(invocationId)
      for (const event of events) foldEvent(fold, event)
      trimFold(fold)
      entry.fold = fold
      forgotten -= 1
      if (!entry.stale) {
        entry.stale = true
        stale.push(entry)
      }
    },
  }
}

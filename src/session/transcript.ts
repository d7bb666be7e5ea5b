/**
 * What a session's conversation looked like, for the dashboard (GET /v1/sessions/{id}/conversation):
 * per accepted event its author, invocation and the readable parts (text, tool calls, tool
 * responses), clipped; bounded so a long session cannot grow it without end (the oldest entries
 * go first). A session with a journal it can read back builds it from the journal when asked and
 * holds nothing; one without (memory store) keeps the events, rebuilt by replay like everything else.
 */
import type { IngestedEvent } from '../engine/types.ts'
import { journaledEvents } from './journaled-events.ts'
import type { Journal } from './journal.ts'

/** Entries kept per session; older ones are dropped (the count of dropped ones is reported). */
export const MAX_TRANSCRIPT_ENTRIES = 500
/** Characters kept per text part or per tool call's JSON arguments. */
export const MAX_TRANSCRIPT_TEXT_CHARS = 4_000

export type TranscriptPart =
  | { kind: 'text'; text: string }
  | { kind: 'call'; name: string; args: string }
  | { kind: 'response'; name: string }

export type TranscriptEntry = {
  index: number
  invocation_id: string
  author: string
  partial: boolean
  parts: TranscriptPart[]
}

export class Transcript {
  /** Where the events are read back from, when they are: then nothing else is kept. */
  #journal: Journal | undefined
  // The events themselves (the engine holds them anyway): entries are built when someone reads
  // them, not on the per-event path, where stringifying every call's arguments would cost each push.
  #events: Kept[] = []
  #dropped = 0
  /** The entries as JSON text, once the session ended: clipped text instead of whole events (`freeze`). */
  #frozen: string | undefined

  constructor(journal?: Journal) {
    this.#journal = journal
  }

  /** @example transcript.add(ingested) */
  add(item: IngestedEvent): void {
    if (this.#journal || this.#frozen !== undefined) return
    if (!(item.event.content?.parts ?? []).some(isReadable)) return
    this.#events.push({ index: item.index, event: item.event })
    if (this.#events.length > MAX_TRANSCRIPT_ENTRIES) {
      this.#events.shift()
      this.#dropped += 1
    }
  }

  /** @example c.json(session.transcript.toJSON()) */
  toJSON(): { entries: TranscriptEntry[]; dropped: number } {
    if (this.#journal) return fromJournal(this.#journal)
    return { entries: this.#frozen !== undefined ? JSON.parse(this.#frozen) : this.#events.map(entryOf), dropped: this.#dropped }
  }

  /**
   * The session ended: nothing more comes, so the clipped entries are built once and the events
   * (up to MAX_TRANSCRIPT_ENTRIES whole events) are let go. Reads answer the same as before.
   */
  freeze(): void {
    if (this.#journal || this.#frozen !== undefined) return
    // As text: an ended session may be held for its whole retention, and the entries' objects
    // took about three times the heap of their JSON.
    this.#frozen = JSON.stringify(this.#events.map(entryOf))
    this.#events = []
  }

  /** Bytes the frozen entries hold (their JSON text); 0 while the session is open (its events are counted). */
  get heldBytes(): number {
    return this.#frozen?.length ?? 0
  }
}

/** The journal's events through a transcript that keeps them, as one kept all along would answer. */
function fromJournal(journal: Journal): { entries: TranscriptEntry[]; dropped: number } {
  const kept = new Transcript()
  for (const item of journaledEvents(journal)) kept.add(item)
  return kept.toJSON()
}

/** The parsed event and its index, not the raw JSON beside it. */
type Kept = Pick<IngestedEvent, 'index' | 'event'>

type Part = NonNullable<NonNullable<IngestedEvent['event']['content']>['parts']>[number]

function isReadable(part: Part): boolean {
  return Boolean(part.text || part.function_call || part.function_response)
}

function entryOf(item: Kept): TranscriptEntry {
  const e = item.event
  const parts: TranscriptPart[] = []
  for (const part of e.content?.parts ?? []) {
    if (part.text) parts.push({ kind: 'text', text: clip(part.text) })
    if (part.function_call) {
      parts.push({ kind: 'call', name: part.function_call.name, args: clip(JSON.stringify(part.function_call.args ?? {})) })
    }
    if (part.function_response) parts.push({ kind: 'response', name: part.function_response.name ?? '' })
  }
  return { index: item.index, invocation_id: e.invocation_id ?? '', author: e.author ?? '', partial: e.partial === true, parts }
}

function clip(text: string): string {
  return text.length > MAX_TRANSCRIPT_TEXT_CHARS ? `${text.slice(0, MAX_TRANSCRIPT_TEXT_CHARS)}…` : text
}

/**
 * A session's journal: everything that was fed to its engine, in order, with when it arrived. A
 * host that persists it rebuilds the session by replaying it (session.ts).
 */
import type { RejectedEvent } from '../engine/types.ts'

/**
 * One input to the engine, as persisted. Events keep their raw JSON; they are re-parsed on replay.
 * `at` is when the input arrived (host clock, ms): a replay gives the engine these times, so the
 * invocation durations it measures are those of the live session (entries journaled before `at`
 * existed replay without a time, and their durations are not available).
 */
export type JournalEntry =
  & (
    | { op: 'event'; index: number; raw: unknown }
    | { op: 'reject'; rejected: RejectedEvent }
    | { op: 'complete' }
    | { op: 'end' }
  )
  & { at?: number }

export interface Journal {
  append(entry: JournalEntry): void
  /** Every entry in order; read lazily (a page at a time), so a replay's slices each read only theirs. */
  entries(): Iterable<JournalEntry>
  /**
   * `entries()` gives back everything appended, at any time: the session lets go of the events it
   * would otherwise hold (completed invocations', the transcript's) and reads them back here.
   */
  readonly rereadable?: boolean
  /**
   * The entries are kept in this process's memory (an in-memory database): the events the session
   * lets go of still count against the process byte budget.
   */
  readonly inMemory?: boolean
  /** Resolves once everything appended so far can be read back without waiting for a writer. */
  settle?(): Promise<void>
}

/** A journal that keeps nothing: in-memory sessions never need replaying. */
export const NO_JOURNAL: Journal = { append() {}, entries: () => [] }

/**
 * A session's accepted events read back from its journal, decoded again, in the order they were
 * accepted: what a session that let them go (its engine's completed invocations, its transcript)
 * reads when it needs them. Decoded as a replay decodes them, so both skip the same entries.
 */
import type { AdkEvent } from '../adk/event.ts'
import type { IngestedEvent } from '../engine/types.ts'
import { decodeCheckedValue, isIngestIssue } from '../ingest/index.ts'
import type { Journal } from './journal.ts'

/** @example for (const { index, event } of journaledEvents(journal)) show(index, event) */
export function* journaledEvents(journal: Journal): Generator<IngestedEvent> {
  for (const entry of journal.entries()) {
    if (entry.op !== 'event') continue
    // Only valid events were journaled; an issue now means the schema changed since (a replay
    // skips the same entry, so the engine never saw it either).
    const decoded = decodeCheckedValue(entry.raw, entry.index)
    if (!isIngestIssue(decoded)) yield decoded
  }
}

/** The events alone, as the engine reads its conversation back. */
export function* journaledAdkEvents(journal: Journal): Generator<AdkEvent> {
  for (const item of journaledEvents(journal)) yield item.event
}

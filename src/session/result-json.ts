/**
 * A logged result's data as JSON text, made once however many consumers write it: the session's
 * SQLite row, the results index's batch and every subscriber's SSE frame each stringified the same
 * object before (four times per result with two subscribers).
 *
 * The texts are kept for the most recent results only (RECENT_RESULT_TEXTS, oldest dropped first):
 * consumers take a result within a turn or two of its append, and a memory store that keeps every
 * result must not keep every text too. A result whose text was dropped is stringified again, which
 * costs time, never correctness: the data objects are never changed once logged.
 */

/** How many results' texts are kept at most (about 300 bytes each for a typical criterion result). */
export const RECENT_RESULT_TEXTS = 4_096

const recent = new Map<object, string>()

/**
 * @example resultDataJson(event.data) === JSON.stringify(event.data)
 */
export function resultDataJson(data: Record<string, unknown>): string {
  const known = recent.get(data)
  if (known !== undefined) return known
  const text = JSON.stringify(data)
  if (recent.size >= RECENT_RESULT_TEXTS) recent.delete(recent.keys().next().value!)
  recent.set(data, text)
  return text
}

/** Texts kept right now (at most RECENT_RESULT_TEXTS). */
export function recentResultTextCount(): number {
  return recent.size
}

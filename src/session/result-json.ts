/**
 * A logged result's data as JSON text, made once however many consumers write it: the session's
 * SQLite row, the results index's batch and every subscriber's SSE frame each stringified the same
 * object before (four times per result with two subscribers).
 *
 * Only recent texts are kept, bounded by their total length (RECENT_RESULT_TEXT_CHARS, oldest
 * dropped first), since the cache holds its data objects too: consumers take a result within a
 * turn or two of its append, and a store must not end up holding every result twice. Bounded by
 * count, it held the last 4,096 results, hundreds of them case results of about 200 KB each, and
 * doubled an ended session's heap. A text that was dropped is made again: time, never correctness
 * (logged data objects are never changed).
 */

/** Characters of recent texts kept at most (their data objects are held as long). */
export const RECENT_RESULT_TEXT_CHARS = 4 * 2 ** 20

const recent = new Map<object, string>()
/**
 * The latest text too long for `recent`, alone: a large case result (megabytes for thousands of
 * invocations) is written to its row, the index, each stream and the `/end` answer within a turn
 * or two, and was stringified for each of them. One such text at a time, the next replacing it.
 */
let large: { data: object; text: string } | undefined
/** The keys of `recent` oldest first, from `head` on (a queue: Map iteration after many deletes from its front is slow). */
let order: Array<object | undefined> = []
let head = 0
let recentChars = 0

/**
 * @example resultDataJson(event.data) === JSON.stringify(event.data)
 */
export function resultDataJson(data: Record<string, unknown>): string {
  const known = cachedResultDataJson(data)
  if (known !== undefined) return known
  const text = JSON.stringify(data)
  rememberResultDataJson(data, text)
  return text
}

/**
 * Keeps `text` as `data`'s (what `resultDataJson` would make of it), for a data object it has
 * not seen: a result read back from a row comes with the text it was stored as, which its stream
 * writes again as is.
 * @example rememberResultDataJson(JSON.parse(row.data), row.data)
 */
export function rememberResultDataJson(data: object, text: string): void {
  // One text that would take a good part of the budget is not kept with the others: it would push out hundreds.
  if (text.length > RECENT_RESULT_TEXT_CHARS / 16) {
    large = { data, text }
    return
  }
  while (recentChars + text.length > RECENT_RESULT_TEXT_CHARS && head < order.length) {
    const oldest = order[head]!
    // The slot lets go of the data object now, not when the queue is next compacted.
    order[head++] = undefined
    recentChars -= recent.get(oldest)!.length
    recent.delete(oldest)
  }
  if (head > 1024 && head * 2 > order.length) {
    order = order.slice(head)
    head = 0
  }
  recent.set(data, text)
  order.push(data)
  recentChars += text.length
}

/**
 * The text `resultDataJson` made for this data object, if it is still kept; never makes one. For a
 * large result whose stored text (a row) is cheaper to read than the object is to stringify again.
 * @example cachedResultDataJson(data) ?? log.dataText(seq)
 */
export function cachedResultDataJson(data: Record<string, unknown>): string | undefined {
  return recent.get(data) ?? (large?.data === data ? large.text : undefined)
}

/** Characters of the texts kept right now in the recent table (at most RECENT_RESULT_TEXT_CHARS). */
export function recentResultTextChars(): number {
  return recentChars
}

/** Characters of the one large text kept beside the table (0 when none). */
export function largeResultTextChars(): number {
  return large?.text.length ?? 0
}

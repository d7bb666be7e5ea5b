/**
 * A logged result's data as JSON text, made once however many consumers write it: the session's
 * SQLite row, the results index's batch and every subscriber's SSE frame each stringified the same
 * object before (four times per result with two subscribers).
 *
 * The text lives as long as the data object and no longer (a WeakMap): consumers take a result
 * within a turn or two of its append, and then only a store that keeps the object (none does: the
 * memory storage keeps the text instead) would keep it. A strong cache of recent results held
 * every recent case result (about 170 KiB each), which doubled an ended session's heap.
 */

const texts = new WeakMap<object, string>()

/**
 * @example resultDataJson(event.data) === JSON.stringify(event.data)
 */
export function resultDataJson(data: Record<string, unknown>): string {
  const known = texts.get(data)
  if (known !== undefined) return known
  const text = JSON.stringify(data)
  texts.set(data, text)
  return text
}

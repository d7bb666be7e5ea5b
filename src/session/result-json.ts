/**
 * A logged result's data as JSON text, made once however many consumers write it: the session's
 * SQLite row, the results index's batch and every subscriber's SSE frame each stringified the same
 * object before (four times per result with two subscribers). And a large text's UTF-8 bytes, made
 * once too: a case result (~200 KB for 50 invocations) goes out as the `case.result` frame of
 * each stream, the `/end` answer and the snapshot's, and was encoded for each of them.
 *
 * Only recent texts are kept, bounded by their total length (RECENT_RESULT_TEXT_CHARS, oldest
 * dropped first), since the cache holds its data objects too: consumers take a result within a
 * turn or two of its append, and a store must not end up holding every result twice. Bounded by
 * count, it held the last 4,096 results, hundreds of them case results of about 200 KB each, and
 * doubled an ended session's heap. A text that was dropped is made again: time, never correctness
 * (logged data objects are never changed). The bytes are kept the same way, with a bound of their own.
 */

/** Characters of recent texts kept at most (their data objects are held as long). */
export const RECENT_RESULT_TEXT_CHARS = 4 * 2 ** 20
/** Bytes of recent encoded texts kept at most (RECENT_RESULT_TEXT_CHARS' twin). */
export const RECENT_RESULT_BYTES = 4 * 2 ** 20
/**
 * Texts at least this long have their bytes kept (`resultDataBytes`): case results. A shorter one is
 * encoded with the frames around it; keeping its bytes would cost an array and a lookup for little.
 */
export const SHARED_BYTES_MIN_CHARS = 16 * 1024

/**
 * Values by data object, the most recent kept, bounded by their total size (oldest dropped first).
 * One value that would take a good part of the bound is not kept with the others (it would push
 * out hundreds) but alone in `#large`: a large case result (megabytes for thousands of invocations)
 * is written to its row, the index, each stream and the `/end` answer within a turn or two. One
 * such value at a time, the next replacing it.
 */
class RecentByData<V> {
  readonly #bound: number
  readonly #sizeOf: (value: V) => number
  readonly #recent = new Map<object, V>()
  #large: { data: object; value: V } | undefined
  /** The keys of `#recent` oldest first, from `#head` on (a queue: Map iteration after many deletes from its front is slow). */
  #order: Array<object | undefined> = []
  #head = 0
  #size = 0

  constructor(bound: number, sizeOf: (value: V) => number) {
    this.#bound = bound
    this.#sizeOf = sizeOf
  }

  get(data: object): V | undefined {
    return this.#recent.get(data) ?? (this.#large?.data === data ? this.#large.value : undefined)
  }

  /** For a data object not kept yet. */
  set(data: object, value: V): void {
    const size = this.#sizeOf(value)
    if (size > this.#bound / 16) {
      this.#large = { data, value }
      return
    }
    while (this.#size + size > this.#bound && this.#head < this.#order.length) {
      const oldest = this.#order[this.#head]!
      // The slot lets go of the data object now, not when the queue is next compacted.
      this.#order[this.#head++] = undefined
      this.#size -= this.#sizeOf(this.#recent.get(oldest)!)
      this.#recent.delete(oldest)
    }
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head)
      this.#head = 0
    }
    this.#recent.set(data, value)
    this.#order.push(data)
    this.#size += size
  }

  /** The size of the values kept in the table (at most the bound), the large one apart. */
  size(): number {
    return this.#size
  }

  largeSize(): number {
    return this.#large ? this.#sizeOf(this.#large.value) : 0
  }
}

const texts = new RecentByData<string>(RECENT_RESULT_TEXT_CHARS, (text) => text.length)
const encoded = new RecentByData<Uint8Array<ArrayBuffer>>(RECENT_RESULT_BYTES, (bytes) => bytes.byteLength)
const utf8 = new TextEncoder()

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
  texts.set(data, text)
}

/**
 * The text `resultDataJson` made for this data object, if it is still kept; never makes one. For a
 * large result whose stored text (a row) is cheaper to read than the object is to stringify again.
 * @example cachedResultDataJson(data) ?? log.dataText(seq)
 */
export function cachedResultDataJson(data: Record<string, unknown>): string | undefined {
  return texts.get(data)
}

/**
 * `resultDataJson(data)` as UTF-8, encoded once while kept when the text is long
 * (SHARED_BYTES_MIN_CHARS). Never written to: every answer and stream shares the same array.
 * @example resultDataBytes(data) // new TextEncoder().encode(JSON.stringify(data))
 */
export function resultDataBytes(data: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  return encoded.get(data) ?? keepBytes(data, resultDataJson(data))
}

/**
 * `resultDataBytes(data)` if its bytes or its text are still kept; never stringifies (as
 * `cachedResultDataJson`).
 */
export function cachedResultDataBytes(data: Record<string, unknown>): Uint8Array<ArrayBuffer> | undefined {
  const known = encoded.get(data)
  if (known) return known
  const text = cachedResultDataJson(data)
  return text === undefined ? undefined : keepBytes(data, text)
}

function keepBytes(data: object, text: string): Uint8Array<ArrayBuffer> {
  const bytes = utf8.encode(text)
  if (text.length >= SHARED_BYTES_MIN_CHARS) encoded.set(data, bytes)
  return bytes
}

/** Characters of the texts kept right now in the recent table (at most RECENT_RESULT_TEXT_CHARS). */
export function recentResultTextChars(): number {
  return texts.size()
}

/** Characters of the one large text kept beside the table (0 when none). */
export function largeResultTextChars(): number {
  return texts.largeSize()
}

/** Bytes of the one large encoded text kept beside that table (0 when none). */
export function largeResultBytes(): number {
  return encoded.largeSize()
}

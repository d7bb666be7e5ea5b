/**
 * Depth and string-length bounds checked on the raw JSON text, before `JSON.parse` builds anything.
 * A 16 MB `[[[...]]]` body parsed first costs ~25x its size in heap before a bound on the parsed
 * value can refuse it; scanned first it costs one pass and a stack no deeper than the depth bound.
 *
 * One pass, no recursion: strings and their escapes are skipped as strings (a `[` inside one is
 * text), containers push a frame only while within the depth bound, so memory is O(maxJsonDepth).
 * The scan checks bounds, not syntax: text that is not JSON is left for `JSON.parse` to refuse.
 * Bounds and paths are those of `findJsonBoundsViolation` (json-bounds.ts) on the parsed value:
 * the top value is depth 1, string lengths are in UTF-16 code units after unescaping, and paths
 * look like `$.content.parts[0]`. Unlike the parsed check it also sees keys JSON.parse would drop
 * as duplicates.
 */
import type { JsonBounds, JsonBoundsViolation } from './json-bounds.ts'

/** A broken bound with the offset (in UTF-16 code units) of the string or container that broke it. */
export type RawBoundsViolation = JsonBoundsViolation & { offset: number }

/** One element of the item list (see scanJsonItems), as a range of the text. */
export type ScannedItem = { start: number; end: number; violation?: RawBoundsViolation }

/** An open container within the bound. `key*` is the raw range of the current key (objects). */
type Frame = { array: boolean; index: number; keyStart: number; keyEnd: number; expectKey: boolean }

const QUOTE = 0x22

/**
 * The first bound `text` breaks, or undefined.
 * @example scanJsonBounds('{"a":[[1]]}', { maxJsonDepth: 2, maxStringLength: 10 }) // { kind: 'depth', path: '$.a[0]', depth: 3, offset: 6 }
 */
export function scanJsonBounds(text: string, bounds: JsonBounds): RawBoundsViolation | undefined {
  return scan(text, bounds, false).violation
}

/**
 * Like scanJsonBounds, but a body that is a list of items (a top-level array, or the `events` array
 * of a top-level object) is judged item by item: a violation inside an item is kept on that item,
 * with a path relative to it, and the scan goes on, so the other items can still be used.
 * `violation` is set only for a bound broken outside the items.
 */
export function scanJsonItems(text: string, bounds: JsonBounds): ScanResult {
  return scan(text, bounds, true)
}

/**
 * `syntaxAt` (item mode only): where the text outside the items stops being JSON (a second top
 * value, a missing or extra comma between items, an unclosed list). The items themselves are left
 * to JSON.parse, one by one.
 */
type ScanResult = { violation?: RawBoundsViolation; items: ScannedItem[] | undefined; syntaxAt?: number }

/** Characters scanned between two pauses of scanJsonItemsInSteps (a few ms of work). */
export const SCAN_STEP_CHARS = 1 << 20

function scan(text: string, bounds: JsonBounds, itemMode: boolean): ScanResult {
  const steps = scanSteps(text, bounds, itemMode)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/**
 * scanJsonItems as a generator that pauses every SCAN_STEP_CHARS characters, so a caller can give
 * the event loop back between steps of a big body; the result is the generator's return value.
 */
export function scanJsonItemsInSteps(text: string, bounds: JsonBounds): Generator<void, ScanResult> {
  return scanSteps(text, bounds, true)
}

function* scanSteps(text: string, bounds: JsonBounds, itemMode: boolean): Generator<void, ScanResult> {
  const frames: Frame[] = []
  /** Containers open; frames are pushed only for those within the bound (depth === frames.length). */
  let depth = 0
  /** Index in `frames` of the container holding the items, or -1. */
  let listIndex = -1
  let items: ScannedItem[] | undefined
  let current: ScannedItem | undefined
  /** The current item already broke a bound: the rest of it is only skipped over. */
  let skipping = false
  /** Item mode: what the list takes next ('first' item, a 'value' after a comma, a 'comma'), and whether the top value began. */
  let listExpect = 'first' as 'first' | 'value' | 'comma'
  let topSeen = false
  let syntaxAt: number | undefined
  const atList = () => listIndex !== -1 && listIndex === frames.length - 1 && depth === frames.length
  const n = text.length
  let i = 0

  const pathOf = (from: number, last?: string, upto: number = frames.length): string => {
    let out = '$'
    const add = (key: string | number) => {
      out += typeof key === 'number' ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key.slice(0, 80))}]`
    }
    for (let f = from; f < upto; f++) {
      const frame = frames[f]!
      add(frame.array ? frame.index : keyText(text, frame.keyStart, frame.keyEnd))
    }
    if (last !== undefined) add(last)
    return out
  }
  /** Report a violation: on the current item (and skip the rest of it), or as the answer. */
  const broke = (violation: RawBoundsViolation): boolean => {
    if (current !== undefined) {
      current.violation = violation
      skipping = true
      return false
    }
    return true
  }
  /** Where paths start: inside an item, at the item (its paths are relative to it). */
  const base = () => (current !== undefined ? listIndex + 1 : 0)
  /** A value starts at `at`: when it sits directly in the item list, it is the next item. */
  const valueStarts = (at: number) => {
    if (depth === 0) {
      if (topSeen) syntaxAt ??= at
      topSeen = true
    }
    if (current === undefined && atList()) {
      if (listExpect === 'comma') syntaxAt ??= at
      listExpect = 'comma'
      current = { start: at, end: at }
      items!.push(current)
    }
  }
  /** A value ended at `end`: when it was the current item itself, that item is complete. */
  const valueEnds = (end: number) => {
    if (current === undefined || depth !== listIndex + 1) return
    current.end = end
    current = undefined
    skipping = false
  }

  /**
   * Where the next backslash and the next quote are (-1: none left), each found again only once the
   * scan passed it: a string of many escapes is then scanned once, not once per escape to its end.
   */
  let nextEscape = -2
  let nextQuote = -2
  let pauseAt = SCAN_STEP_CHARS
  while (i < n) {
    if (i >= pauseAt) {
      yield
      pauseAt = i + SCAN_STEP_CHARS
    }
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      // Jump from escape to escape with indexOf; the next backslash and quote are searched again
      // only once passed, so a text of many strings, or one string of many escapes, is scanned once.
      const start = i
      let length = 0
      i++
      for (;;) {
        if (nextEscape !== -1 && nextEscape < i) nextEscape = text.indexOf('\\', i)
        if (nextQuote !== -1 && nextQuote < i) nextQuote = text.indexOf('"', i)
        const end = nextQuote === -1 ? n : nextQuote
        if (nextEscape === -1 || nextEscape > end) {
          length += end - i
          i = end
          break
        }
        length += nextEscape - i + 1
        i = nextEscape + (text.charCodeAt(nextEscape + 1) === 0x75 ? 6 : 2)
        if (i >= n) break
      }
      i++
      const top = frames[frames.length - 1]
      const isKey = top !== undefined && !top.array && top.expectKey && depth === frames.length
      if (isKey) {
        top.keyStart = start
        top.keyEnd = i
      } else valueStarts(start)
      if (!skipping && depth === frames.length && length > bounds.maxStringLength) {
        const path = isKey ? pathOf(base(), keyText(text, start, i), frames.length - 1) : pathOf(base())
        const violation = { kind: 'string' as const, path, length, offset: start }
        if (broke(violation)) return { violation, items }
      }
      if (!isKey) valueEnds(i)
      continue
    }
    if (c === 0x7b || c === 0x5b) {
      valueStarts(i)
      depth++
      if (!skipping && depth === frames.length + 1) {
        // Inside an item, depth counts from the item (its top is depth 1), as on the parsed item.
        const relative = depth - base()
        if (relative > bounds.maxJsonDepth) {
          const violation = { kind: 'depth' as const, path: pathOf(base()), depth: relative, offset: i }
          if (broke(violation)) return { violation, items }
        } else {
          frames.push({ array: c === 0x5b, index: 0, keyStart: 0, keyEnd: 0, expectKey: c === 0x7b })
          if (itemMode && current === undefined && isItemList(text, frames, c)) {
            // JSON.parse keeps the last of duplicate `events` keys, so a later list replaces this one.
            listIndex = frames.length - 1
            listExpect = 'first'
            items = []
          }
        }
      }
      i++
      continue
    }
    if (c === 0x7d || c === 0x5d) {
      if (itemMode && (depth === 0 || (atList() && (c !== 0x5d || listExpect === 'value')))) {
        syntaxAt ??= i
        if (depth === 0) break
      }
      if (depth === frames.length) {
        frames.pop()
        if (listIndex === frames.length) listIndex = -1
      }
      depth--
      i++
      valueEnds(i)
      continue
    }
    if (c === 0x2c) {
      if (itemMode && (depth === 0 || (atList() && listExpect !== 'comma'))) syntaxAt ??= i
      if (atList()) listExpect = 'value'
      const top = frames[frames.length - 1]
      if (top !== undefined && depth === frames.length) {
        if (top.array) top.index++
        else top.expectKey = true
      }
    } else if (c === 0x3a) {
      if (itemMode && (depth === 0 || atList())) syntaxAt ??= i
      const top = frames[frames.length - 1]
      if (top !== undefined && depth === frames.length) top.expectKey = false
    } else if (c > 0x20) {
      // A number or literal: one value, up to the next structural character.
      const start = i
      valueStarts(start)
      while (i < n && !isStructural(text.charCodeAt(i))) i++
      valueEnds(i)
      continue
    }
    i++
  }
  if (itemMode && depth !== 0) syntaxAt ??= n
  return syntaxAt === undefined ? { items } : { items, syntaxAt }
}

/** Whether the container just opened holds the items: the top array, or the top object's `events` array. */
function isItemList(text: string, frames: readonly Frame[], open: number): boolean {
  if (open !== 0x5b) return false
  if (frames.length === 1) return true
  const parent = frames[0]!
  return frames.length === 2 && !parent.array && keyText(text, parent.keyStart, parent.keyEnd) === 'events'
}

/** A key's text from its raw range; JSON.parse only on that (bounded) range, for paths and names. */
function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start, end)
  try {
    return JSON.parse(raw) as string
  } catch {
    return raw.slice(1, -1)
  }
}

function isStructural(c: number): boolean {
  return c === 0x2c || c === 0x5d || c === 0x7d || c === 0x3a || c === QUOTE || c <= 0x20 || c === 0x5b || c === 0x7b
}

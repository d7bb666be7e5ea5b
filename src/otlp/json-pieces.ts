/**
 * An OTLP/JSON body parsed a piece at a time, so a request of several megabytes never holds the
 * event loop for one `JSON.parse` of all of it. The bytes are scanned for the request's frame (the
 * top object, its resource list, each resource, its scope list, each scope, its item list); every
 * other value (each span or log record, each `resource` and `scope`, anything else) is a piece,
 * decoded and parsed on its own, with a step (a chance to give the loop back) after each. The frame
 * with a number in place of each piece is then parsed, and the pieces put back: the result is the
 * value `JSON.parse` gives for the whole text (same keys, same order, the last of duplicate keys).
 *
 * Whole-body validity holds: each piece must parse, and so must the frame around them (a piece is
 * replaced by ` n `, a number token apart, so nothing can merge with its neighbours), which together
 * is the whole text being JSON. A body that is not JSON is refused (400) as before; the message may
 * name a different first fault than `JSON.parse` of the whole would. One piece is the unit that
 * cannot be split: one span's text, bounded by EVALSTREAM_OTLP_MAX_DECOMPRESSED_BYTES.
 */
import { OtlpRequestError } from './model.ts'

/** The frame's list names: [resource list, scope list, item list], in lowerCamel (snake_case is accepted too). */
export type FrameNames = readonly [string, string, string]

/** Where a value sits: what a container at this level is, and which of its keys open the next level. */
type Level = 'root' | 'resources' | 'resource' | 'scopes' | 'scope' | 'items'

const QUOTE = 0x22
const BACKSLASH = 0x5c
const isSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

const utf8 = new TextDecoder('utf-8', { fatal: true })

function decode(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw new OtlpRequestError(400, 'the JSON body is not valid UTF-8')
  }
}

function notJson(message: string): OtlpRequestError {
  return new OtlpRequestError(400, `the body is not JSON: ${message}`)
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** The end (exclusive) of the string whose opening quote is at `at`. */
function stringEnd(bytes: Uint8Array, at: number): number {
  for (let q = bytes.indexOf(QUOTE, at + 1); q !== -1; q = bytes.indexOf(QUOTE, q + 1)) {
    let slashes = 0
    while (bytes[q - 1 - slashes] === BACKSLASH) slashes++
    if (slashes % 2 === 0) return q + 1
  }
  throw notJson(`a string opened at byte ${at} is not closed`)
}

/** The end (exclusive) of the value starting at `at` (not checked beyond its extent: its parse does that). */
function valueEnd(bytes: Uint8Array, at: number): number {
  const first = bytes[at]
  if (first === QUOTE) return stringEnd(bytes, at)
  if (first === 0x7b || first === 0x5b) {
    let depth = 0
    for (let i = at; i < bytes.length; i++) {
      const b = bytes[i]
      if (b === QUOTE) i = stringEnd(bytes, i) - 1
      else if (b === 0x7b || b === 0x5b) depth++
      else if ((b === 0x7d || b === 0x5d) && --depth === 0) return i + 1
    }
    throw notJson(`a value opened at byte ${at} is not closed`)
  }
  let i = at
  while (i < bytes.length && !isSpace(bytes[i]) && bytes[i] !== 0x2c && bytes[i] !== 0x7d && bytes[i] !== 0x5d) i++
  if (i === at) throw notJson(`a value was expected at byte ${at}`)
  return i
}

/**
 * The parsed body, yielding after each piece; throws OtlpRequestError (400) when it is not JSON.
 * @example const body = yield* parseInPieces(bytes, ['resourceSpans', 'scopeSpans', 'spans'])
 */
export function* parseInPieces(bytes: Uint8Array, names: FrameNames): Generator<void, unknown> {
  const { body, unread } = yield* parseInPiecesLazily(bytes, names)
  const whole = fill(body, [], true)
  yield* unread()
  return whole
}

/**
 * A span or log record not parsed yet: its reader parses it when it comes to it, so each is parsed,
 * read and let go in turn (the collector then has a few objects a span to move, not the whole body's).
 */
export class LazyPiece {
  readonly #bytes: Uint8Array
  readonly #from: number
  readonly #to: number
  parsed = false
  constructor(bytes: Uint8Array, from: number, to: number) {
    this.#bytes = bytes
    this.#from = from
    this.#to = to
  }
  parse(): unknown {
    this.parsed = true
    return parsePiece(this.#bytes, this.#from, this.#to)
  }
}

/** A value of the body, parsed if it is a lazy item. */
export const resolvePiece = (value: unknown): unknown => (value instanceof LazyPiece ? value.parse() : value)

/**
 * The body with its items (the elements of each scope's item list) left as LazyPiece, and `unread`:
 * steps that parse the items its reader never came to (under a resource it refused, or a duplicate
 * key's loser), since the whole body must still be JSON.
 */
export function* parseInPiecesLazily(
  bytes: Uint8Array,
  names: FrameNames,
): Generator<void, { body: unknown; unread: () => Generator<void, void> }> {
  const opens = (level: Level, key: string): Level | undefined => {
    const [resources, scopes, items] = names
    const is = (name: string) => key === name || key === snake(name)
    if (level === 'root') return is(resources) ? 'resources' : undefined
    if (level === 'resource') return is(scopes) ? 'scopes' : undefined
    if (level === 'scope') return is(items) ? 'items' : undefined
    return undefined
  }
  /** What an element of a list at `level` is when it is an object. */
  const elementOf: Partial<Record<Level, Level>> = { resources: 'resource', scopes: 'scope' }

  let at = 0
  const skipSpace = () => {
    while (isSpace(bytes[at])) at++
  }
  skipSpace()
  // Not an object at the top: the request is refused whatever it holds, so one parse of it is kept.
  if (bytes[at] !== 0x7b) return { body: parseWhole(bytes), unread: function* () {} }

  const pieces: unknown[] = []
  const frame: string[] = []
  let copiedTo = 0
  const copyFrame = (to: number) => {
    if (to > copiedTo) frame.push(decode(bytes.subarray(copiedTo, to)))
    copiedTo = to
  }
  /** The stack of open containers: their level, and whether each is an object (keys) or a list. */
  const stack: Array<{ level: Level; object: boolean }> = []

  /** The value at `at` inside a container at `level` under `key`: opened as part of the frame, or taken as a piece. */
  function* value(level: Level, key: string | undefined): Generator<void, void> {
    const first = bytes[at]
    const next = key === undefined ? (first === 0x7b ? elementOf[level] : undefined) : first === 0x5b ? opens(level, key) : undefined
    if (next !== undefined || (stack.length === 0 && first === 0x7b)) {
      stack.push({ level: next ?? 'root', object: first === 0x7b })
      at++
      yield
      return
    }
    const end = valueEnd(bytes, at)
    copyFrame(at)
    frame.push(` ${pieces.length} `)
    pieces.push(level === 'items' ? new LazyPiece(bytes, at, end) : parsePiece(bytes, at, end))
    copiedTo = at = end
    yield
  }

  yield* value('root', undefined)
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!
    skipSpace()
    const b = bytes[at]
    if (b === (top.object ? 0x7d : 0x5d)) {
      stack.pop()
      at++
      skipSpace()
      if (stack.length > 0) {
        if (bytes[at] === 0x2c) at++
        else if (bytes[at] !== (stack[stack.length - 1]!.object ? 0x7d : 0x5d)) {
          throw notJson(`',' or a closing bracket was expected at byte ${at}`)
        }
      }
      continue
    }
    if (top.object) {
      if (b !== QUOTE) throw notJson(`a key was expected at byte ${at}`)
      const keyEnd = stringEnd(bytes, at)
      const key = parsePiece(bytes, at, keyEnd) as string
      at = keyEnd
      skipSpace()
      if (bytes[at] !== 0x3a) throw notJson(`':' was expected at byte ${at}`)
      at++
      skipSpace()
      yield* value(top.level, key)
    } else {
      yield* value(top.level, undefined)
    }
    // A container just opened is read by the next round; after a piece, a ',' or the closing bracket.
    if (stack[stack.length - 1] === top) {
      skipSpace()
      if (bytes[at] === 0x2c) at++
      else if (bytes[at] !== (top.object ? 0x7d : 0x5d)) throw notJson(`',' or a closing bracket was expected at byte ${at}`)
    }
  }
  copyFrame(bytes.length)
  const skeleton = parseText(frame.join(''))
  const lazies = pieces.filter((p): p is LazyPiece => p instanceof LazyPiece)
  return {
    body: fill(skeleton, pieces),
    unread: function* () {
      for (const lazy of lazies) {
        if (lazy.parsed) continue
        lazy.parse()
        yield
      }
    },
  }
}

/** The frame with its numbers replaced by the pieces they stand for (every number in the frame is one). */
function fill(value: unknown, pieces: readonly unknown[], resolveOnly = false): unknown {
  if (resolveOnly) {
    if (value instanceof LazyPiece) return value.parse()
    if (value === null || typeof value !== 'object') return value
  } else if (typeof value === 'number') return pieces[value]
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = fill(value[i], pieces, resolveOnly)
    return value
  }
  const object = value as Record<string, unknown>
  for (const key of Object.keys(object)) {
    const filled = fill(object[key], pieces, resolveOnly)
    // JSON.parse makes '__proto__' an own property; a plain assignment would set the prototype instead.
    if (key === '__proto__') Object.defineProperty(object, key, { value: filled, writable: true, enumerable: true, configurable: true })
    else object[key] = filled
  }
  return object
}

function parseText(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw notJson((error as Error).message)
  }
}

function parsePiece(bytes: Uint8Array, from: number, to: number): unknown {
  try {
    return JSON.parse(decode(bytes.subarray(from, to)))
  } catch (error) {
    if (error instanceof OtlpRequestError) throw error
    throw notJson(`${(error as Error).message} (in the value at bytes ${from}-${to})`)
  }
}

function parseWhole(bytes: Uint8Array): unknown {
  return parseText(decode(bytes))
}

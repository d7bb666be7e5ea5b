/**
 * The push decoder: body chunks in, numbered events and issues out, for SSE, NDJSON and JSON.
 * Stateless apart from its buffers: one bad frame becomes an issue and the frames around it are
 * decoded as if it were not there.
 */
import {
  boundsIssue,
  decodeCheckedValue,
  decodeFrameText,
  type FrameLimits,
  mayExceedLimit,
  tooLarge,
  utf8ByteLength,
  violationIssue,
} from './frame.ts'
import { type RawBoundsViolation, scanJsonItemsInSteps } from '../adk/json-scan.ts'
import { DEFAULT_LIMITS } from './limits.ts'
import { type FrameSplitter, ndjsonSplitter, sseSplitter } from './lines.ts'
import { type DecodedEvent, type DecoderCallbacks, type DecoderOutput, type EventFormat, type IngestIssue, isIngestIssue } from './types.ts'
import { isRecord } from '../adk/json.ts'

export type EventDecoder = {
  /** Feed the next piece of the body. Bytes may split a UTF-8 character anywhere. */
  push(chunk: string | Uint8Array): void
  /** The body is complete: flush what is buffered. */
  end(): void
  /**
   * A frame the caller skipped for its size without passing it on (the proxy's frame splitter):
   * numbered in order and reported as a `too_large` issue, as one found here would be.
   */
  oversized(): void
  /**
   * end(), in steps: a big JSON body is scanned and its elements decoded between pauses, so the
   * caller can give the event loop back (each step is a few ms of work). Other formats: one step.
   */
  endInSteps(): Generator<void, void>
}

/**
 * How many times longer JSON.stringify of a parsed element can be than the element's text: a
 * number is written out in full (`1e20` is 21 characters from 4, 5.25 times), strings and the rest
 * never grow. An element whose text times this cannot reach the byte limit needs no measuring.
 */
export const MAX_JSON_REWRITE_GROWTH = 6

/** JSON bodies up to this many characters are parsed whole; larger ones element by element, in steps. */
export const WHOLE_JSON_BODY_CHARS = 1 << 20

/**
 * A JSON body: one event, an array of events (`/run`), or a stored session (`{"events": [...]}`).
 * It is only decodable as a whole, so it is buffered until `end()`.
 */
function* jsonSplitter(
  text: string,
  next: () => number,
  deliver: (output: DecoderOutput) => void,
  limits: FrameLimits,
): Generator<void, void> {
  if (text.trim() === '') return
  // Bounds on the raw text first, item by item: a body out of bounds is never parsed whole.
  const scanned = yield* scanJsonItemsInSteps(text, limits)
  if (scanned.violation) {
    deliver(violationIssue(scanned.violation, next(), limits))
    return
  }
  // A big list (or one with an element out of bounds) is parsed element by element, pausing
  // between elements: a malformed element is then rejected alone and its neighbours kept.
  if (scanned.items && (text.length > WHOLE_JSON_BODY_CHARS || scanned.items.some((item) => item.violation !== undefined))) {
    // The body around the elements is not JSON: one issue for the body, as JSON.parse would give.
    if (scanned.syntaxAt !== undefined) {
      deliver({
        index: next(),
        kind: 'invalid_json',
        message: `invalid JSON: unexpected text at character ${scanned.syntaxAt} between or after the elements`,
      })
      return
    }
    const measure = mayExceedLimit(text.length * MAX_JSON_REWRITE_GROWTH, limits.maxEventBytes)
    for (const item of scanned.items) {
      deliverItem(text.slice(item.start, item.end), item.violation, next(), deliver, limits, measure)
      yield
    }
    return
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    deliver({ index: next(), kind: 'invalid_json', message: `invalid JSON: ${(error as Error).message}` })
    return
  }
  const items: unknown[] = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value.events) ? value.events : [value]
  // Only a body that could exceed the limit once written again pays for measuring its elements.
  const measure = mayExceedLimit(text.length * MAX_JSON_REWRITE_GROWTH, limits.maxEventBytes)
  for (const item of items) {
    const index = next()
    // Bounds first: JSON.stringify recurses, so it only ever sees an element of bounded depth.
    const outOfBounds = boundsIssue(item, index, limits)
    if (outOfBounds) {
      deliver(outOfBounds)
      continue
    }
    const bytes = measure ? utf8ByteLength(JSON.stringify(item) ?? '') : 0
    deliver(bytes > limits.maxEventBytes ? tooLarge(index, bytes, limits) : decodeCheckedValue(item, index))
  }
}

/** One item of a list body where some item broke a bound: that one is an issue, the rest parsed alone. */
function deliverItem(
  text: string,
  violation: RawBoundsViolation | undefined,
  index: number,
  deliver: (output: DecoderOutput) => void,
  limits: FrameLimits,
  measure: boolean,
): void {
  if (violation) return deliver(violationIssue(violation, index, limits))
  let item: unknown
  try {
    item = JSON.parse(text)
  } catch (error) {
    return deliver({ index, kind: 'invalid_json', message: `invalid JSON: ${(error as Error).message}` })
  }
  // The limit holds the element as written again (as a body parsed whole measures it); most
  // elements are far enough below it that their text alone says so.
  const near = measure && mayExceedLimit(text.length * MAX_JSON_REWRITE_GROWTH, limits.maxEventBytes)
  const bytes = near ? utf8ByteLength(JSON.stringify(item) ?? '') : 0
  deliver(bytes > limits.maxEventBytes ? tooLarge(index, bytes, limits) : decodeCheckedValue(item, index))
}

/**
 * @example
 * const decoder = createEventDecoder('sse', { onEvent: (e) => console.log(e.index, e.event.author), onIssue: console.warn })
 * decoder.push('data: {"author":"agent","invocationId":"e-1"}\n\n')
 * decoder.end()
 */
export function createEventDecoder(
  format: EventFormat,
  callbacks: DecoderCallbacks,
  limits: FrameLimits = DEFAULT_LIMITS,
): EventDecoder {
  let index = 0
  let ended = false
  let first = true
  // ignoreBOM: the leading BOM is dropped below, once; Node's streaming decoder otherwise drops a
  // BOM that follows an undecodable first byte when the bytes come in two chunks, not when in one.
  const utf8 = new TextDecoder('utf-8', { ignoreBOM: true })
  const next = () => index++
  const deliver = (output: DecoderOutput) => {
    if (isIngestIssue(output)) callbacks.onIssue(output)
    else callbacks.onEvent(output)
  }
  const sink = {
    frame: (text: string) => deliver(decodeFrameText(text, next(), limits)),
    oversize: () => deliver(tooLarge(next(), undefined, limits)),
  }
  const jsonParts: string[] = []
  const splitter: FrameSplitter & { endInSteps?: () => Generator<void, void> } = format === 'sse'
    ? sseSplitter(sink, limits.maxEventBytes)
    : format === 'ndjson'
    ? ndjsonSplitter(sink, limits.maxEventBytes)
    : {
      feed: (text) => void jsonParts.push(text),
      end: () => runAll(jsonSplitter(jsonParts.splice(0).join(''), next, deliver, limits)),
      endInSteps: () => jsonSplitter(jsonParts.splice(0).join(''), next, deliver, limits),
    }

  function feed(text: string): void {
    if (first && text !== '') {
      first = false
      // JSON.parse rejects a byte-order mark; TextDecoder drops it from bytes, strings may still carry it.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    if (text !== '') splitter.feed(text)
  }

  return {
    push(chunk) {
      if (ended) throw new Error('EventDecoder: push() after end()')
      feed(typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true }))
    },
    oversized() {
      if (ended) throw new Error('EventDecoder: oversized() after end()')
      sink.oversize()
    },
    end: () => runAll(endInSteps()),
    endInSteps,
  }

  function* endInSteps(): Generator<void, void> {
    if (ended) return
    ended = true
    feed(utf8.decode())
    if (splitter.endInSteps) yield* splitter.endInSteps()
    else splitter.end()
  }
}

function runAll(steps: Generator<void, void>): void {
  while (!steps.next().done);
}

/**
 * Decode a whole body at once.
 * @example decodeAll('ndjson', '{"author":"agent"}\nnot json\n') // { events: [{ index: 0, … }], issues: [{ index: 1, kind: 'invalid_json', … }] }
 */
export function decodeAll(
  format: EventFormat,
  body: string | Uint8Array,
  limits: FrameLimits = DEFAULT_LIMITS,
): { events: DecodedEvent[]; issues: IngestIssue[] } {
  const events: DecodedEvent[] = []
  const issues: IngestIssue[] = []
  const decoder = createEventDecoder(format, { onEvent: (e) => events.push(e), onIssue: (i) => issues.push(i) }, limits)
  decoder.push(body)
  decoder.end()
  return { events, issues }
}

/**
 * The decoder as a TransformStream: body chunks in, events and issues out, in frame order.
 * @example
 * for await (const out of response.body!.pipeThrough(new EventDecoderStream('sse')))
 *   if (!isIngestIssue(out)) console.log(out.event.author)
 */
export class EventDecoderStream extends TransformStream<string | Uint8Array, DecoderOutput> {
  constructor(format: EventFormat, limits: FrameLimits = DEFAULT_LIMITS) {
    let decoder: EventDecoder | undefined
    super({
      start(controller) {
        const enqueue = (output: DecoderOutput) => controller.enqueue(output)
        decoder = createEventDecoder(format, { onEvent: enqueue, onIssue: enqueue }, limits)
      },
      transform: (chunk) => decoder!.push(chunk),
      flush: () => decoder!.end(),
    })
  }
}

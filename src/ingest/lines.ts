/**
 * Frame splitters: SSE (through eventsource-parser) and NDJSON lines. Each turns pushed text into
 * complete frame texts and reports a frame that outgrows the event byte limit while still buffering, so
 * one huge or endless frame costs bounded memory and never hides the frames after it.
 */
import { createParser } from 'eventsource-parser'
import { MAX_EVENT_BYTES } from './limits.ts'

export type FrameSplitter = { feed(text: string): void; end(): void }
export type FrameSink = { frame(text: string): void; oversize(): void }

/** Room for `data: ` prefixes and line breaks around a frame that is just under the limit. */
const SSE_BUFFER_SLACK = 1024

/**
 * SSE `data` frames of type `message` (or no type). Comments, keepalives, `retry`, and frames of
 * other event types (e.g. evalstream's own `event: evalstream`) are skipped without a frame number.
 */
export function sseSplitter(sink: FrameSink, maxEventBytes: number = MAX_EVENT_BYTES): FrameSplitter {
  const parser = createParser({
    // In UTF-16 code units: a frame of at most maxEventBytes bytes never has more code units.
    maxBufferSize: maxEventBytes + SSE_BUFFER_SLACK,
    onEvent(message) {
      if (message.event !== undefined && message.event !== 'message') return
      // An empty `data:` is a keepalive some servers send; it carries no event.
      if (message.data.trim() === '') return
      sink.frame(message.data)
    },
    onError(error) {
      // Unknown fields and bad `retry` values are ignored, as the SSE spec says.
      if (error.type !== 'max-buffer-size-exceeded') return
      // The parser stops after an overflow; restart it so the frames after this one still arrive.
      // The rest of the oversized line reaches it as a line without a field name and is dropped.
      parser.reset()
      sink.oversize()
    },
  })
  return {
    // Line by line: after an overflow the parser drops whatever is left of the text it was fed, so
    // a whole chunk fed at once would lose the frames behind an oversized one (but only when they
    // came in the same chunk). Fed a line at a time, an overflow drops only the rest of its line.
    // The next `\n` and `\r` are each looked up again only once passed, so every character is
    // scanned once per kind: a chunk of many `\n` lines and no `\r` costs its length, not lines x length.
    feed(text) {
      let start = 0
      let lf = -2
      let cr = -2
      for (;;) {
        if (lf !== -1 && lf < start) lf = text.indexOf('\n', start)
        if (cr !== -1 && cr < start) cr = text.indexOf('\r', start)
        const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr)
        if (end === -1) break
        parser.feed(text.slice(start, end + 1))
        start = end + 1
      }
      if (start < text.length) parser.feed(start === 0 ? text : text.slice(start))
    },
    // A body that ends without the blank line after its last frame still delivers that frame
    // (browsers drop it; a truncated frame then shows up as an invalid_json issue, not silence).
    end: () => parser.feed('\n\n'),
  }
}

/** NDJSON: one frame per line; `\r\n` accepted; blank lines skipped without a frame number. */
export function ndjsonSplitter(sink: FrameSink, maxEventBytes: number = MAX_EVENT_BYTES): FrameSplitter {
  // Fragments joined once per line: concatenating per chunk is quadratic for a long line in tiny chunks.
  let fragments: string[] = []
  let pending = 0
  let skipping = false

  function emit(line: string): void {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line
    if (text.trim() !== '') sink.frame(text)
  }

  return {
    feed(text) {
      let start = 0
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        if (skipping) skipping = false
        else {
          fragments.push(text.slice(start, nl))
          emit(fragments.length === 1 ? fragments[0]! : fragments.join(''))
        }
        fragments = []
        pending = 0
        start = nl + 1
      }
      if (skipping || start === text.length) return
      const rest = start === 0 ? text : text.slice(start)
      fragments.push(rest)
      pending += rest.length
      if (pending > maxEventBytes) {
        // More code units than the limit means more bytes too: drop the rest of this line.
        fragments = []
        pending = 0
        skipping = true
        sink.oversize()
      }
    },
    end() {
      if (!skipping && fragments.length > 0) emit(fragments.join(''))
      fragments = []
      pending = 0
      skipping = false
    },
  }
}

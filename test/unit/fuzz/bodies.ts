/**
 * Request bodies, paths and headers for the route fuzzer: event texts framed as JSON, NDJSON or SSE
 * (with torn, split, commented and CRLF frames), turned into bytes with invalid UTF-8 spliced in,
 * and cut into chunks at random points; odd content types; malformed percent-encoding in paths.
 */
import fc from 'fast-check'
import { eventText } from './json-text.ts'

export type EventFormatName = 'json' | 'ndjson' | 'sse'

/** Byte sequences that are not UTF-8: a lone continuation, a truncated sequence, an encoded surrogate, past U+10FFFF, overlong. */
const BAD_UTF8 = [[0xff], [0x80], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0xfe, 0xff], [
  0xef,
  0xbb,
  0xbf,
], [0x00]]

const encoder = new TextEncoder()

/** Text as UTF-8 with bad byte sequences inserted at some positions. */
export const corruptBytes = (text: string): fc.Arbitrary<Uint8Array> =>
  fc.array(fc.tuple(fc.nat(), fc.constantFrom(...BAD_UTF8)), { maxLength: 3 }).map((inserts) => {
    const bytes = encoder.encode(text)
    if (inserts.length === 0) return bytes
    const at = inserts.map(([n, seq]) => [n % (bytes.length + 1), seq] as const).sort((a, b) => a[0] - b[0])
    const out = new Uint8Array(bytes.length + at.reduce((n, [, seq]) => n + seq.length, 0))
    let from = 0
    let to = 0
    for (const [pos, seq] of at) {
      out.set(bytes.subarray(from, pos), to)
      to += pos - from
      out.set(seq, to)
      to += seq.length
      from = pos
    }
    out.set(bytes.subarray(from), to)
    return out
  })

/** The bytes cut into pieces at random points (a UTF-8 character or a frame may be split). */
export const chunked = (bytes: Uint8Array): fc.Arbitrary<Uint8Array[]> =>
  fc.array(fc.nat({ max: Math.max(0, bytes.length) }), { maxLength: 6 }).map((cuts) => {
    const points = [...new Set([0, ...cuts, bytes.length])].sort((a, b) => a - b)
    const pieces: Uint8Array[] = []
    for (let i = 1; i < points.length; i++) pieces.push(bytes.subarray(points[i - 1]!, points[i]!))
    return pieces.length > 0 ? pieces : [bytes]
  })

const sseFrame = fc.oneof(
  { weight: 8, arbitrary: eventText.map((t) => `data: ${t}\n\n`) },
  { weight: 1, arbitrary: eventText.map((t) => `data:${t}\r\n\r\n`) },
  { weight: 1, arbitrary: eventText.map((t) => `event: message\nid: 7\ndata: ${t}\n\n`) },
  // One JSON text over two data lines (SSE joins them with a newline).
  { weight: 1, arbitrary: eventText.map((t) => `data: ${t.slice(0, t.length >> 1)}\ndata: ${t.slice(t.length >> 1)}\n\n`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ': ping\n\n',
      'retry: x\n\n',
      'event: evalstream\ndata: {}\n\n',
      'data: {"error":"boom"}\n\n',
      '\n\n',
      'data:\n\n',
      'id\n\n',
    ),
  },
)

/** A whole events body as text in one format, possibly with a torn (unterminated) last frame. */
export const eventsBodyText = (format: EventFormatName): fc.Arbitrary<string> => {
  const items = fc.array(eventText, { minLength: 0, maxLength: 8 })
  if (format === 'json') {
    return fc.oneof(
      eventText,
      items.map((ts) => `[${ts.join(',')}]`),
      items.map((ts) => `{"events":[${ts.join(',')}]}`),
      fc.integer({ min: 1000, max: 20_000 }).map((n) => `[${Array(n).fill('{"author":"a","invocationId":"i"}').join(',')}]`),
    )
  }
  if (format === 'ndjson') {
    return fc.tuple(items, fc.constantFrom('\n', '\r\n', '\n\n'), fc.boolean()).map(([ts, nl, end]) => ts.join(nl) + (end ? nl : ''))
  }
  return fc
    .tuple(fc.array(sseFrame, { maxLength: 8 }), fc.nat(), fc.boolean())
    .map(([frames, cut, torn]) => {
      const text = frames.join('')
      return torn ? text.slice(0, text.length - (cut % Math.max(1, frames.at(-1)?.length ?? 1))) : text
    })
}

/** Content-Type values: the three formats spelled every way, and ones we do not take. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constantFrom('application/json', 'application/x-ndjson', 'text/event-stream', undefined),
  fc.constantFrom(
    'application/json; charset=utf-8',
    'TEXT/EVENT-STREAM; charset=latin1',
    'application/jsonl',
    'application/x-ndjson; q=0.5',
    'text/plain',
    '',
    'multipart/form-data; boundary=x',
    'application/json;;;',
    'application/x-www-form-urlencoded',
    '*/*',
  ),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
)

/** What the format the route will read for a content type is does not matter: any body goes. */
export const eventsBody = fc
  .constantFrom<EventFormatName>('json', 'ndjson', 'sse')
  .chain((format) => eventsBodyText(format))
  .chain((text) => corruptBytes(text))
  .chain((bytes) => chunked(bytes))

/** A path segment: plain, percent-encoded, malformed percent-encoding, dot segments, huge. */
export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~:-]{1,20}$/),
  fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s)),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '%ff', '%c0%af', '%ed%a0%80', '%00', '..', '.', '%2e%2e', 'a%2Fb', '%25', '%u0041', '%%', '%2'),
  fc.integer({ min: 200, max: 10_000 }).map((n) => 'a'.repeat(n)),
)

/** Headers a client may send: any printable ASCII value, so the request itself is valid. */
export const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 30 })

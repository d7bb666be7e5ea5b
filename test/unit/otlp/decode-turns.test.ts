/**
 * A flood-sized OTLP request (5,000 spans, 2.5 MB of JSON, as bench/otlp-containment.ts sends) is
 * decoded a slice at a time: no `JSON.parse` of the whole body, a step after each span, and the
 * receiver gives the loop back once a slice has done its share. Work is counted, not timed: the
 * clock is the number of characters given to `JSON.parse`, so no machine decides the result. And
 * the piecewise parse gives exactly what `JSON.parse` of the whole text gives, or refuses (400) what
 * it refuses.
 * Covers: src/otlp/json-pieces.ts, src/otlp/decode-json.ts, src/otlp/decode-protobuf.ts, src/http/otlp-routes.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { llmSpanFlood } from '../../support/llm-span-flood.ts'
import {
  decodeTraceRequest,
  decodeTracesJson,
  decodeTracesProtobuf,
  DEFAULT_OTLP_LIMITS,
  OtlpRequestError,
} from '../../../src/otlp/index.ts'
import { MAX_OPEN_TRACES } from '../../../src/otlp/limits.ts'
import { drain } from '../../../src/otlp/decode-json.ts'
import { decodeTracesProtobufSteps } from '../../../src/otlp/decode-protobuf.ts'
import { parseInPieces } from '../../../src/otlp/json-pieces.ts'
import { createTurnSlicer } from '../../../src/ingest/turn-slicer.ts'
import { OTLP_DECODE_UNITS_PER_SLICE } from '../../../src/http/otlp-routes.ts'
import { fixtureText } from './support/fixtures.ts'
import { receiverApp } from './support/receiver-app.ts'
import { encodeTracesProtobuf } from './support/encode-protobuf.ts'

const JSON_TYPE = { contentType: 'application/json' }
const SPANS = 5_000
/** Characters parsed before a slice gives the loop back, in this test's count-based clock. */
const SLICE_CHARS = 64 * 1024

/** The bench's flood: root-less call_llm spans with a user message and an answer. */
const floodBody = () => llmSpanFlood(SPANS, { firstTraceId: 1_000_001, rootless: true })

/** Characters given to JSON.parse so far, and the most in one call. */
function countParses() {
  const counted = { chars: 0, largest: 0 }
  const parse = JSON.parse
  vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    counted.chars += text.length
    counted.largest = Math.max(counted.largest, text.length)
    return parse(text, reviver)
  })
  return counted
}

afterEach(() => vi.restoreAllMocks())

describe('a flood-sized OTLP request is decoded in slices', () => {
  const text = floodBody()
  const bytes = new TextEncoder().encode(text)

  it('never parses the whole body at once, and no slice parses more than its share plus one span', async () => {
    expect(bytes.byteLength).toBeGreaterThan(2_000_000)
    const whole = decodeTracesJson(text, DEFAULT_OTLP_LIMITS)
    const counted = countParses()
    let turns = 0
    const slicer = createTurnSlicer({ sliceMs: SLICE_CHARS, clock: () => counted.chars, yieldTurn: async () => void turns++ })
    const sliced = await decodeTraceRequest(bytes, JSON_TYPE, DEFAULT_OTLP_LIMITS, slicer)
    expect(sliced).toEqual(whole)
    expect(sliced.spans).toHaveLength(SPANS)
    // The largest single parse is the frame: the request's brackets and keys with a short number
    // for each span (about 7 characters a span), not its 2.5 MB.
    expect(counted.largest).toBeLessThan(8 * SPANS)
    expect(slicer.longestMs).toBeLessThan(SLICE_CHARS + counted.largest)
    expect(turns).toBeGreaterThanOrEqual(Math.floor(counted.chars / (SLICE_CHARS + counted.largest)))
  })

  it('the receiver decodes with the slicer it is given (as the app passes its turns), the whole request answered as before', async () => {
    const counted = countParses()
    const slices: number[] = []
    let turns = 0
    vi.spyOn(console, 'error').mockImplementation(() => {}) // the dropped traces' log lines
    const r = receiverApp({
      env: { EVALSTREAM_OTLP_MAX_ITEMS_PER_REQUEST: String(SPANS) },
      deps: {
        turns: {
          sliceMs: SLICE_CHARS,
          clock: () => counted.chars,
          yieldTurn: async () => void turns++,
          report: (n) => void slices.push(n),
        },
      },
    })
    const res = await r.post('/v1/traces', text)
    expect(res.status).toBe(200)
    // 100 sessions opened (EVALSTREAM_OTLP_MAX_NEW_SESSIONS_PER_REQUEST), the last MAX_OPEN_TRACES
    // held open for their grace, the rest refused as partial success.
    expect(await res.json()).toMatchObject({ partialSuccess: { rejectedSpans: String(SPANS - 100 - MAX_OPEN_TRACES) } })
    expect(slices).toHaveLength(1)
    expect(slices[0]).toBeLessThan(SLICE_CHARS + 8 * SPANS)
    expect(turns).toBeGreaterThan(10)
  })

  it('with a clock that does not move (deployed Workers: only I/O moves it), a slice still ends after OTLP_DECODE_UNITS_PER_SLICE spans', async () => {
    let turns = 0
    const slicer = createTurnSlicer({ maxUnits: OTLP_DECODE_UNITS_PER_SLICE, clock: () => 0, yieldTurn: async () => void turns++ })
    const decoded = await decodeTraceRequest(bytes, JSON_TYPE, DEFAULT_OTLP_LIMITS, slicer)
    expect(decoded.spans).toHaveLength(SPANS)
    // Each span is a step twice: its piece parsed, then read.
    expect(turns).toBeGreaterThanOrEqual(Math.floor((2 * SPANS) / OTLP_DECODE_UNITS_PER_SLICE))
  })

  it('a step after every span, in JSON and protobuf alike', () => {
    const steps = (gen: Generator<void, unknown>) => {
      let n = 0
      while (!gen.next().done) n++
      return n
    }
    // A step per span holds for any count: a tenth of the flood shows it at a tenth of the cost.
    const spans = SPANS / 10
    const small = llmSpanFlood(spans, { firstTraceId: 1_000_001, rootless: true })
    const proto = encodeTracesProtobuf(JSON.parse(small))
    expect(steps(decodeTracesProtobufSteps(proto, DEFAULT_OTLP_LIMITS))).toBeGreaterThanOrEqual(spans)
    expect(drain(decodeTracesProtobufSteps(proto, DEFAULT_OTLP_LIMITS))).toEqual(decodeTracesProtobuf(proto, DEFAULT_OTLP_LIMITS))
    expect(steps(parseInPieces(new TextEncoder().encode(small), ['resourceSpans', 'scopeSpans', 'spans']))).toBeGreaterThanOrEqual(spans)
  })
})

describe('the piecewise parse is JSON.parse of the whole', () => {
  const NAMES = ['resourceSpans', 'scopeSpans', 'spans'] as const
  const pieces = (text: string) => drain(parseInPieces(new TextEncoder().encode(text), NAMES))
  const outcome = (parse: () => unknown) => {
    try {
      return { value: parse() }
    } catch (e) {
      return { status: e instanceof OtlpRequestError ? e.status : 'threw', json: e instanceof SyntaxError }
    }
  }

  it.each([
    ...['adk-js.jsonl', 'adk-python-v2.jsonl', 'adk-go.jsonl'].flatMap((f) => fixtureText(f).split('\n').filter(Boolean)),
    '{"resource_spans":[{"scope_spans":[{"spans":[{"name":"a"},1,"x",null,[2]]}]}]}',
    '{"resourceSpans":[{"scopeSpans":[]}],"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"last wins"}]}]}]}',
    '{"__proto__":{"x":1},"resourceSpans":[{"__proto__":[1],"scopeSpans":[{"spans":[{"__proto__":2}]}]}]}',
    ' \n{ "resourceSpans" : [ 7 , { "resource" : {"attributes":[]} , "scopeSpans" : [ { "scope":{"name":"\\"}]["} , "spans" : [ ] } ] } ] } \t',
    '{"resourceSpans":{"scopeSpans":[]},"x":[{"spans":[1]}],"y":"\\u00e9\\\\"}',
    '{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"é ☃ 𝄞","n":-1.5e3,"t":true,"f":false}]}]}]}',
    '{}',
    '[]',
    '"x"',
    '3',
  ])('valid: %s', (text) => {
    expect(pieces(text)).toEqual(JSON.parse(text))
  })

  it.each([
    '',
    '   ',
    '{',
    '{"resourceSpans":[{"scopeSpans":[{"spans":[{}1]}]}]}',
    '{"resourceSpans":[{"scopeSpans":[{"spans":[{},]}]}]}',
    '{"resourceSpans":[1 2]}',
    '{"resourceSpans":[{"scopeSpans":[{"spans":[{"a":"unclosed}]}]}]}',
    '{"a":1}x',
    '{"a" 1}',
    '{a:1}',
    '{"resourceSpans":[{"scopeSpans":[{"spans":[{"a":[1 2]}]}]}]}',
    '{"resourceSpans":[{"scopeSpans":[{"spans":[{"a":01}]}]}]}',
    '{"resourceSpans":[{"scopeSpans":[{"spans":[-]}]}]}',
  ])('not JSON, refused 400 like the whole: %j', (text) => {
    expect(outcome(() => JSON.parse(text))).toMatchObject({ json: true })
    expect(outcome(() => pieces(text))).toEqual({ status: 400, json: false })
  })

  it.each([
    '{"resourceSpans":[{"scopeSpans":[{"spans":[{"a":01}],"spans":[]}]}]}',
    '{"resourceSpans":[{"resource":{"attributes":[{"key":1}]},"scopeSpans":[{"spans":[{"a":01}]}]}]}',
  ])('a span the decoder never reads must still be JSON (a duplicate key lost, a refused resource): %j', async (text) => {
    const error = await decodeTraceRequest(new TextEncoder().encode(text), JSON_TYPE, DEFAULT_OTLP_LIMITS).catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 400, message: /not JSON/ })
    expect(() => JSON.parse(text)).toThrow(SyntaxError)
  })

  it('bytes that are not UTF-8 are refused as such', () => {
    const bytes = Uint8Array.from([
      ...new TextEncoder().encode('{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"'),
      0xff,
      0x22,
      0x7d,
      0x5d,
      0x7d,
      0x5d,
      0x7d,
      0x5d,
      0x7d,
    ])
    expect(() => drain(parseInPieces(bytes, NAMES))).toThrow(/not valid UTF-8/)
  })
})

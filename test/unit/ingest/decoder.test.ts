import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { contentText } from '../../../src/adk/content.ts'
import { eventsToInvocations } from '../../../src/core/events-to-invocations.ts'
import {
  createEventDecoder,
  decodeAll,
  EventDecoderStream,
  MAX_JSON_REWRITE_GROWTH,
  WHOLE_JSON_BODY_CHARS,
} from '../../../src/ingest/decoder.ts'
import { DEFAULT_LIMITS } from '../../../src/ingest/limits.ts'
import { type DecodedEvent, type EventFormat, type IngestIssue, isIngestIssue, MAX_EVENT_BYTES } from '../../../src/ingest/types.ts'
import { sharedPath } from '../../support/shared-data.ts'
import { seededRandom as rng } from '../../support/prng.ts'

const SAMPLES = sharedPath('samples').replace(/\/$/, '')
const enc = new TextEncoder()

/** Split bytes at random positions (1..max bytes per chunk), seeded. */
function randomChunks(bytes: Uint8Array, seed: number, max = 64): Uint8Array[] {
  const random = rng(seed)
  const chunks: Uint8Array[] = []
  for (let at = 0; at < bytes.length;) {
    const size = 1 + Math.floor(random() * max)
    chunks.push(bytes.subarray(at, at + size))
    at += size
  }
  return chunks
}

function decodeChunks(format: EventFormat, chunks: (string | Uint8Array)[]) {
  const events: DecodedEvent[] = []
  const issues: IngestIssue[] = []
  const decoder = createEventDecoder(format, { onEvent: (e) => events.push(e), onIssue: (i) => issues.push(i) })
  for (const chunk of chunks) decoder.push(chunk)
  decoder.end()
  return { events, issues }
}

const oneByte = (bytes: Uint8Array) => Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))

describe('recorded /run_sse bodies', () => {
  const files = readdirSync(SAMPLES).filter((f) => f.endsWith('.sse'))
  it.each(files)('%s: whole, 1-byte and random chunks give the same events and invocations', (name) => {
    const bytes = new Uint8Array(readFileSync(`${SAMPLES}/${name}`))
    const text = new TextDecoder().decode(bytes)
    const whole = decodeAll('sse', text)
    // Every `data:` frame of the file is one good event, numbered in order.
    const frames = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)))
    expect(whole.issues).toEqual([])
    expect(whole.events.map((e) => e.index)).toEqual(frames.map((_, i) => i))
    expect(whole.events.map((e) => e.raw)).toEqual(frames)
    const expected = JSON.stringify(whole.events)
    const invocations = JSON.stringify(eventsToInvocations(whole.events.map((e) => e.event)))
    const ways = [[bytes], oneByte(bytes), ...[1, 2, 3, 4, 5].map((seed) => randomChunks(bytes, seed))]
    for (const chunks of ways) {
      const got = decodeChunks('sse', chunks)
      expect(got.issues).toEqual([])
      expect(JSON.stringify(got.events)).toBe(expected)
      expect(JSON.stringify(eventsToInvocations(got.events.map((e) => e.event)))).toBe(invocations)
    }
  })

  it('the streaming run gives exactly one final response text, not the chunks twice', () => {
    const { events } = decodeAll('sse', readFileSync(`${SAMPLES}/adk-js-weather-streaming.sse`))
    const [inv] = eventsToInvocations(events.map((e) => e.event))
    const finalText = contentText(inv!.final_response)
    expect(finalText.length).toBeGreaterThan(0)
    const all = JSON.stringify(inv)
    expect(all.split(JSON.stringify(finalText)).length - 1).toBe(1)
    // No streamed chunk survives as an intermediate text event: only the calls and their results do.
    const data = inv!.intermediate_data as { invocation_events: { content: { parts?: object[] } | null }[] }
    const kinds = data.invocation_events.map((e) => Object.keys(e.content?.parts?.[0] ?? {}).filter((k) => k.startsWith('function')))
    expect(kinds).toEqual([['function_call'], ['function_response'], ['function_call'], ['function_response']])
  })
})

describe('bad frames', () => {
  const good = (n: number) => JSON.stringify({ invocationId: 'e-1', author: 'agent', content: { parts: [{ text: `ok ${n}` }] } })
  const sse = (...data: string[]) => data.map((d) => `data: ${d}\n\n`).join('')

  it('are reported with their frame index and cost the good frames nothing', () => {
    const body = sse(
      good(0),
      '{not json',
      good(2),
      '[1, 2]',
      good(4),
      '{"content": {"parts": [{"functionCall": {"name": 5}}]}}',
      '{"error": "model quota exceeded"}',
      good(7),
    )
    const { events, issues } = decodeAll('sse', body)
    expect(events.map((e) => [e.index, contentText(e.event.content)])).toEqual([
      [0, 'ok 0'],
      [2, 'ok 2'],
      [4, 'ok 4'],
      [7, 'ok 7'],
    ])
    expect(issues.map((i) => [i.index, i.kind, i.path])).toEqual([
      [1, 'invalid_json', undefined],
      [3, 'invalid_event', '$'],
      // The path is spelled as the sender wrote it (camelCase), not as the schema names it.
      [5, 'invalid_event', '$.content.parts[0].functionCall.name'],
      [6, 'agent_error', undefined],
    ])
    expect(issues[3]!.message).toBe('model quota exceeded')
    expect(issues[0]!.message).toMatch(/^invalid JSON/)
  })

  it('SSE comments, keepalives, retry and non-message event types are skipped, not numbered', () => {
    const body = `: ping\n\nretry: 100\n\ndata:\n\nevent: evalstream\ndata: {"seq":1}\n\nevent: message\ndata: ${
      good(0)
    }\n\nfoo: bar\ndata: ${good(1)}\n\n`
    const { events, issues } = decodeAll('sse', body)
    expect(issues).toEqual([])
    expect(events.map((e) => [e.index, contentText(e.event.content)])).toEqual([
      [0, 'ok 0'],
      [1, 'ok 1'],
    ])
  })

  it('a last frame without its blank line is still delivered; a truncated one is an issue', () => {
    expect(decodeAll('sse', `data: ${good(0)}`).events).toHaveLength(1)
    const cut = decodeAll('sse', `data: ${good(0)}\n\ndata: {"author": "ag`)
    expect(cut.events).toHaveLength(1)
    expect(cut.issues.map((i) => [i.index, i.kind])).toEqual([[1, 'invalid_json']])
  })

  it('NDJSON with a broken line, blank lines and CRLF', () => {
    const body = `${good(0)}\r\n\n{"author": \n${good(2)}\n"just a string"\n${good(4)}`
    for (const chunks of [[body], oneByte(enc.encode(body))]) {
      const { events, issues } = decodeChunks('ndjson', chunks)
      expect(events.map((e) => e.index)).toEqual([0, 2, 4])
      expect(issues.map((i) => [i.index, i.kind])).toEqual([
        [1, 'invalid_json'],
        [3, 'invalid_event'],
      ])
    }
  })

  it('JSON array with one bad element; single object; stored session; unparseable body', () => {
    const arr = decodeAll('json', `[${good(0)}, {"partial": "yes"}, ${good(2)}]`)
    expect(arr.events.map((e) => e.index)).toEqual([0, 2])
    expect(arr.issues).toEqual([expect.objectContaining({ index: 1, kind: 'invalid_event', path: '$.partial' })])
    expect(decodeAll('json', good(0)).events).toHaveLength(1)
    const session = decodeAll('json', JSON.stringify({ id: 's', appName: 'x', events: [JSON.parse(good(0))] }))
    expect(session.events.map((e) => contentText(e.event.content))).toEqual(['ok 0'])
    expect(decodeAll('json', '[{').issues.map((i) => [i.index, i.kind])).toEqual([[0, 'invalid_json']])
    expect(decodeAll('json', '  \n')).toEqual({ events: [], issues: [] })
  })

  it('keeps raw exactly as received: camelCase and unknown keys', () => {
    const raw = { invocationId: 'e', author: 'a', nodeInfo: { path: '' }, content: { parts: [{ functionCall: { name: 'f', args: {} } }] } }
    const [item] = decodeAll('sse', sse(JSON.stringify(raw))).events
    expect(item!.raw).toEqual(raw)
    expect(item!.event.invocation_id).toBe('e')
    expect(item!.event.content?.parts?.[0]?.function_call?.name).toBe('f')
  })
})

describe('size limit', () => {
  const big = JSON.stringify({ author: 'agent', content: { parts: [{ text: 'x'.repeat(MAX_EVENT_BYTES) }] } })
  const small = JSON.stringify({ author: 'agent', content: { parts: [{ text: 'after' }] } })
  // Larger than the SSE parser's buffer limit: exercises the overflow-and-restart path when streamed.
  const huge = JSON.stringify({ author: 'agent', content: { parts: [{ text: 'y'.repeat(2 * MAX_EVENT_BYTES) }] } })
  const multiByte = JSON.stringify({ author: 'agent', content: { parts: [{ text: 'é'.repeat(MAX_EVENT_BYTES / 2) }] } })

  it.each(['sse', 'ndjson'] as const)('%s: an oversized frame, whole or streamed, is too_large and the next frame survives', (format) => {
    const frame = (d: string) => (format === 'sse' ? `data: ${d}\n\n` : `${d}\n`)
    // 'é' is 1 code unit but 2 bytes: only the byte count catches it.
    for (const body of [frame(big) + frame(small), frame(huge) + frame(small), frame(multiByte) + frame(small)]) {
      const bytes = enc.encode(body)
      for (const chunks of [[body], randomChunks(bytes, 7, 50_000)]) {
        const { events, issues } = decodeChunks(format, chunks)
        expect(issues.map((i) => [i.index, i.kind])).toEqual([[0, 'too_large']])
        expect(events.map((e) => [e.index, contentText(e.event.content)])).toEqual([[1, 'after']])
      }
    }
  })

  it('sse: frames after an oversized one arrive in the same chunk (CRLF lines, several data lines)', () => {
    // Here the parser overflows mid-chunk (the frame's data is still open when the limit is passed)
    // and drops the rest of what it was fed: whole bodies lost every frame after the big one.
    const crlf = `data: ${huge}\r\n\r\ndata: ${small}\r\n\r\ndata: ${small}\r\n\r\n`
    const lines = `data: ${huge}\ndata: {}\n\ndata: ${small}\n\n`
    for (const body of [crlf, lines]) {
      for (const chunks of [[body], randomChunks(enc.encode(body), 5, 400_000)]) {
        const { events, issues } = decodeChunks('sse', chunks)
        expect(issues.map((i) => [i.index, i.kind])[0]).toEqual([0, 'too_large'])
        expect(events.map((e) => contentText(e.event.content))).toEqual(body === crlf ? ['after', 'after'] : ['after'])
      }
    }
  })

  it('json: an oversized array element is too_large', () => {
    const { events, issues } = decodeAll('json', `[${big}, ${small}]`)
    expect(issues.map((i) => [i.index, i.kind])).toEqual([[0, 'too_large']])
    expect(events.map((e) => e.index)).toEqual([1])
  })
})

describe('a list body element is measured as written again, only when its text says it may be near the limit', () => {
  it(`JSON.stringify of a parsed element is at most MAX_JSON_REWRITE_GROWTH (${MAX_JSON_REWRITE_GROWTH}) times its text`, () => {
    const worst = ['1e20', '9e20', '-1e20', '1E+20', '1.5e20', '1e-6', '-0', '0', '[1e20,1e20]', '{"a":1e20}', '"\\u00e9"', '"\\/"']
    for (const text of worst) expect(JSON.stringify(JSON.parse(text)).length).toBeLessThanOrEqual(MAX_JSON_REWRITE_GROWTH * text.length)
  })

  it('a short element that grows past the limit when written again is too_large, in a body parsed whole and element by element', () => {
    const limits = { ...DEFAULT_LIMITS, maxEventBytes: 5_000 }
    // 250 numbers: 1,250 characters as sent, 5,500 bytes written again.
    const growing = `{"author":"agent","n":[${Array(250).fill('1e20').join(',')}]}`
    const filler = JSON.stringify({ author: 'agent', invocationId: 'e-1', content: { parts: [{ text: 'x'.repeat(180) }] } })
    const count = Math.ceil(WHOLE_JSON_BODY_CHARS / filler.length) + 1
    const sliced = `[${growing},${Array(count).fill(filler).join(',')}]`
    expect(sliced.length).toBeGreaterThan(WHOLE_JSON_BODY_CHARS)
    const stringify = vi.spyOn(JSON, 'stringify')
    try {
      const bySlices = decodeAll('json', sliced, limits)
      expect(bySlices.issues.map((i) => [i.index, i.kind])).toEqual([[0, 'too_large']])
      expect(bySlices.events).toHaveLength(count)
      // The filler elements (about 240 characters each) are too short to reach 5,000 bytes: not written again.
      expect(stringify.mock.calls.length).toBeLessThan(10)
    } finally {
      stringify.mockRestore()
    }
    const whole = decodeAll('json', `[${growing},${filler}]`, limits)
    expect(whole.issues.map((i) => [i.index, i.kind])).toEqual([[0, 'too_large']])
  })
})

describe('UTF-8 and streams', () => {
  const text = 'Grüße, 東京 😀 ok'
  const body = `data: ${JSON.stringify({ author: 'agent', content: { parts: [{ text }] } })}\n\n`

  it.each(['sse', 'ndjson', 'json'] as const)('%s: multi-byte characters split across chunks survive', (format) => {
    const payload = format === 'sse' ? body : body.slice(6).trim()
    const bytes = enc.encode(`\uFEFF${payload}`)
    for (const chunks of [oneByte(bytes), randomChunks(bytes, 3, 3)]) {
      const { events, issues } = decodeChunks(format, chunks)
      expect(issues).toEqual([])
      expect(contentText(events[0]!.event.content)).toBe(text)
    }
  })

  it('EventDecoderStream yields events and issues in frame order', async () => {
    const bytes = enc.encode(`${body}data: nope\n\n${body}`)
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of randomChunks(bytes, 11, 5)) controller.enqueue(chunk)
        controller.close()
      },
    })
    const out: string[] = []
    for await (const item of source.pipeThrough(new EventDecoderStream('sse'))) {
      out.push(isIngestIssue(item) ? `${item.index}:${item.kind}` : `${item.index}:${contentText(item.event.content)}`)
    }
    expect(out).toEqual([`0:${text}`, '1:invalid_json', `2:${text}`])
  })

  it('push after end is a programming error', () => {
    const decoder = createEventDecoder('sse', { onEvent() {}, onIssue() {} })
    decoder.end()
    expect(() => decoder.push('data: {}\n\n')).toThrow(/after end/)
  })
})

describe('a BOM that is not at the start (found by bench/fuzz.ts)', () => {
  it.each(['ndjson', 'json'] as const)('%s: kept the same whether the bytes come in one chunk or two', (format) => {
    const bytes = new Uint8Array([0xff, 0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0x0a])
    const outputs = (chunks: Uint8Array[]) => {
      const out: string[] = []
      const decoder = createEventDecoder(format, {
        onEvent: (e) => out.push(`event ${e.index}`),
        onIssue: (i) => out.push(`${i.index} ${i.message}`),
      })
      for (const chunk of chunks) decoder.push(chunk)
      decoder.end()
      return out
    }
    expect(outputs([bytes.slice(0, 1), bytes.slice(1)])).toEqual(outputs([bytes]))
    expect(outputs([bytes])[0]).toContain('\uFEFF')
  })
})

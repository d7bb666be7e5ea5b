/**
 * A case result's UTF-8 bytes are made once and written by the `case.result` frame of each stream,
 * the `/end` answer and the snapshot: every byte on the wire stays what it was when each of them
 * encoded its own text (formatSseMessage's frames, the JSON texts), for non-ASCII text, for a case
 * result whose bytes are shared, one past the bytes cache's bound, and after the caches let go.
 * Covers: src/session/result-json.ts, src/http/results-stream.ts, src/session/ended-answers.ts,
 * src/session/session.ts, src/http/sse-frames.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import type { ResultChunk } from '../../../src/http/result-source.ts'
import { sseResultFrames } from '../../../src/http/results-stream.ts'
import { formatSseMessage } from '../../../src/http/sse-frames.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import type { ResultEvent } from '../../../src/engine/types.ts'
import {
  largeResultBytes,
  RECENT_RESULT_BYTES,
  RECENT_RESULT_TEXT_CHARS,
  rememberResultDataJson,
  resultDataBytes,
  SHARED_BYTES_MIN_CHARS,
} from '../../../src/session/result-json.ts'
import { memorySessionStore, sqliteSessionStore } from '../../../src/session/store.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { CONFIG, WEATHER_EVENTS, WEATHER_TOOLS, weatherCase } from '../../support/weather-fixtures.ts'
import { jsonRequest } from '../../support/json-request.ts'

const utf8 = new TextEncoder()

const STORES = {
  memory: () => memorySessionStore(),
  sqlite: () => sqliteSessionStore(sqlFromDatabaseSync(new DatabaseSync(':memory:'))),
}

/** Repeats of the final answer's non-ASCII piece: case results of ~7 KB (encoded with the frames around it), ~43 KB and ~370 KB. */
const SIZES = { small: 1, shared: 2_000, 'past the bound': 20_000 }

/** Texts and bytes enough to push every other one out of both caches, their large slots too. */
function fillCaches(): void {
  for (let i = 0; i < 24; i++) resultDataBytes({ chunk: 'x'.repeat(RECENT_RESULT_BYTES / 20) })
  resultDataBytes({ chunk: 'x'.repeat(Math.max(RECENT_RESULT_BYTES, RECENT_RESULT_TEXT_CHARS) / 8) })
}

const bytesOf = async (res: Response | Promise<Response>) => {
  const answer = await res
  expect(answer.status).toBe(200)
  return new Uint8Array(await answer.arrayBuffer())
}

afterEach(() => {
  vi.restoreAllMocks()
})

/** Each store, each size, with the caches letting go of everything right after the end or not. */
const CASES = (Object.keys(STORES) as Array<keyof typeof STORES>).flatMap((store) =>
  (Object.keys(SIZES) as Array<keyof typeof SIZES>).flatMap((size) => [false, true].map((evicted) => ({ store, size, evicted })))
)

/** A session whose final answer (and so its case result) holds `answer`, its events posted. */
async function sessionAnswering(kind: keyof typeof STORES, answer: string) {
  const store = STORES[kind]()
  const createEngine = (o: Parameters<typeof createSessionEngine>[0]) => createSessionEngine(o)
  const app = createApp({ store, createEngine })
  const events = WEATHER_EVENTS.map((e, i, all) => i < all.length - 1 ? e : { ...e, content: { role: 'model', parts: [{ text: answer }] } })
  const eval_case = weatherCase(WEATHER_TOOLS, answer)
  expect((await app.fetch(jsonRequest('POST', '/v1/sessions', { session_id: 's', eval_config: CONFIG, eval_case }))).status).toBe(201)
  expect((await app.fetch(jsonRequest('POST', '/v1/sessions/s/events', events))).status).toBeLessThan(300)
  return { app, session: async () => (await store.get('s', createEngine))! }
}

describe("a case result's bytes, made once, are the bytes each answer wrote before", () => {
  it.each(CASES)('$store store, $size, caches let go after the end: $evicted', async ({ store: kind, size, evicted }) => {
    const answer = `Paris: é, 😀, 21°C ${'ü€😀'.repeat(SIZES[size])}`
    const { app, session: hosted } = await sessionAnswering(kind, answer)

    const encode = vi.spyOn(TextEncoder.prototype, 'encode')
    const live = app.fetch(jsonRequest('GET', '/v1/sessions/s/results'))
    const ended = await bytesOf(app.fetch(jsonRequest('POST', '/v1/sessions/s/end')))
    const streamed = await bytesOf(live)
    if (evicted) fillCaches()
    const snapshot = await bytesOf(app.fetch(jsonRequest('GET', '/v1/sessions/s')))
    const session = await hosted()
    const { case_result, ...rest } = session.snapshot()
    const again = await bytesOf(app.fetch(jsonRequest('POST', '/v1/sessions/s/end')))
    const logged = session.log.readAfter(0)
    const caseText = JSON.stringify(logged.at(-1)!.data)
    const caseEncodes = encode.mock.calls.filter(([text]) => text?.length === caseText.length).length
    const later = await bytesOf(app.fetch(jsonRequest('GET', '/v1/sessions/s/results')))

    expect(logged.at(-1)!.type).toBe('case.result')
    expect(caseText).toContain(answer)
    const frames = utf8.encode(
      logged.map((e) => formatSseMessage({ id: String(e.seq), event: e.type, data: JSON.stringify(e.data) })).join(''),
    )
    expect(streamed).toEqual(frames)
    expect(later).toEqual(frames)
    expect(ended).toEqual(utf8.encode(caseText))
    expect(again).toEqual(ended)
    expect(snapshot).toEqual(utf8.encode(JSON.stringify({ ...rest, case_result })))

    const bytes = utf8.encode(caseText).byteLength
    if (size === 'small') expect(caseText.length).toBeLessThan(SHARED_BYTES_MIN_CHARS)
    else expect(caseText.length).toBeGreaterThanOrEqual(SHARED_BYTES_MIN_CHARS)
    if (size === 'shared') expect(bytes).toBeLessThanOrEqual(RECENT_RESULT_BYTES / 16)
    if (size === 'past the bound') expect(bytes).toBeGreaterThan(RECENT_RESULT_BYTES / 16)
    // Shared bytes: one encode for the stream, both `/end` answers and the snapshot while kept;
    // once the caches let go, the snapshot and the second `/end` read the SQLite row's bytes as
    // stored, and encode the memory store's text.
    if (size !== 'small') expect(caseEncodes).toBe(evicted && kind === 'memory' ? 3 : 1)
  })
})

describe("a case result's frame", () => {
  /** The chunks a stream of this one chunk writes, and their bytes joined. */
  const frames = async (chunk: ResultChunk) => {
    const pieces: Uint8Array[] = []
    const source = new ReadableStream<ResultChunk>({
      start(c) {
        c.enqueue(chunk)
        c.close()
      },
    })
    await source.pipeThrough(sseResultFrames()).pipeTo(new WritableStream({ write: (c) => void pieces.push(c) }))
    const joined = new Uint8Array(pieces.reduce((n, piece) => n + piece.byteLength, 0))
    pieces.reduce((at, piece) => (joined.set(piece, at), at + piece.byteLength), 0)
    return { pieces, joined }
  }

  it('is its head, the shared bytes and its tail, as formatSseMessage makes it, between other frames', async () => {
    const data = { eval_id: 'é😀', text: '\u2028"\\\r\n\u0000😀'.repeat(SHARED_BYTES_MIN_CHARS) }
    const results = [
      { seq: 7, type: 'criterion.result', key: 'r', data: { note: 'ü' } },
      { seq: 8, type: 'case.result', key: 'case', data },
      { seq: 9, type: 'error', key: 'e', data: { message: 'after' } },
    ] as ResultEvent[]
    const { pieces, joined } = await frames({ results })
    // JSON text never has a raw CR or LF (they are escaped), so formatSseMessage writes it on one `data:` line.
    expect(JSON.stringify(data)).not.toMatch(/[\r\n]/)
    const expected = results.map((e) => formatSseMessage({ id: String(e.seq), event: e.type, data: JSON.stringify(e.data) })).join('')
    expect(joined).toEqual(utf8.encode(expected))
    expect(pieces).toContain(resultDataBytes(data))
  })

  it('with a raw line break (a text kept as some row stored it) is formatSseMessage with a data line per line', async () => {
    const value = { lines: Array.from({ length: 2_000 }, (_, i) => `é ${i}`) }
    const pretty = JSON.stringify(value, null, '\r\n')
    const data = JSON.parse(pretty)
    rememberResultDataJson(data, pretty)
    expect(pretty.length).toBeGreaterThanOrEqual(SHARED_BYTES_MIN_CHARS)
    const { joined } = await frames({ results: [{ seq: 3, type: 'case.result', key: 'case', data }] })
    const expected = formatSseMessage({ id: '3', event: 'case.result', data: pretty })
    expect(expected.split('\ndata: ').length).toBeGreaterThan(2_000)
    expect(joined).toEqual(utf8.encode(expected))
  })

  it('past the bytes cache bound, keeps only the latest such bytes', () => {
    const huge = { text: 'é'.repeat(RECENT_RESULT_BYTES / 8) }
    const bytes = resultDataBytes(huge)
    expect(largeResultBytes()).toBe(bytes.byteLength)
    expect(resultDataBytes(huge)).toBe(bytes)
    resultDataBytes({ text: 'ü'.repeat(RECENT_RESULT_BYTES / 8) })
    const again = resultDataBytes(huge)
    expect(again).not.toBe(bytes)
    expect(again).toEqual(bytes)
  })
})

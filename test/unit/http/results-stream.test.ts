/**
 * The results stream's mechanics: resume points past the end, a reader that stops reading (the
 * queue stays bounded and nothing is lost), a reader that hangs up while backpressured (its
 * subscription goes, on a real socket), heartbeats, and the bytes of batched frames.
 */
import { serve } from '@hono/node-server'
import { connect } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import type { ResultEvent } from '../../../src/engine/types.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { createResultLog, memoryResultStorage } from '../../../src/session/result-log.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { createApp } from '../../../src/http/app.ts'
import { MAX_QUEUED_RESULTS, type ResultChunk, resultSource } from '../../../src/http/result-source.ts'
import { MAX_BATCH_CHARS, sseResultFrames } from '../../../src/http/results-stream.ts'
import { formatSseMessage } from '../../../src/http/sse-frames.ts'
import { readSse } from '../../support/sse-client.ts'
import { CONFIG, MATCHING_CASE, WEATHER_SSE } from '../../support/weather-fixtures.ts'

function setup() {
  const store = memorySessionStore()
  const createEngine = (o: Parameters<typeof createSessionEngine>[0]) => createSessionEngine(o)
  const app = createApp({ store, createEngine })
  let n = 0
  const create = async () => {
    const id = `rs-${++n}`
    const res = await app.request('/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE }),
    })
    expect(res.status).toBe(201)
    return { id, session: (await store.get(id, createEngine))! }
  }
  return { app, create }
}

const padding = 'x'.repeat(2_000)
/** Results straight into the log: the stream's mechanics do not care which engine wrote them. */
function flood(log: { append(b: { type: ResultEvent['type']; key: string; data: Record<string, unknown> }): unknown }, count: number) {
  for (let i = 0; i < count; i++) log.append({ type: 'criterion.progress', key: `flood/${i}`, data: { i, padding } })
}

describe('resume points', () => {
  it('a Last-Event-ID past the last id resumes from the end and still closes at case.result', async () => {
    const { app, create } = setup()
    const { id } = await create()
    await app.request(`/v1/sessions/${id}/events`, { method: 'POST', headers: { 'content-type': 'text/event-stream' }, body: WEATHER_SSE })
    const last = Number(((await (await app.request(`/v1/sessions/${id}`)).json()) as any).last_seq)
    const live = app.request(`/v1/sessions/${id}/results`, { headers: { 'last-event-id': '999' } })
    await app.request(`/v1/sessions/${id}/end`, { method: 'POST' })
    const messages = await readSse(await live)
    expect(messages.map((m) => [m.event, Number(m.id)])).toEqual([['case.result', last + 1]])
    // After the end, the same resume point gets an empty stream that closes at once.
    expect(await readSse(await app.request(`/v1/sessions/${id}/results`, { headers: { 'last-event-id': '999' } }))).toEqual([])
  })
})

describe('a reader that stops reading', () => {
  it(`loses nothing past ${MAX_QUEUED_RESULTS} queued results: it reads them back from the log`, async () => {
    const { app, create } = setup()
    const { id, session } = await create()
    const res = await app.request(`/v1/sessions/${id}/results`)
    const count = MAX_QUEUED_RESULTS * 2 + 17
    flood(session.log, count) // nobody reads meanwhile
    await app.request(`/v1/sessions/${id}/end`, { method: 'POST' })
    const messages = await readSse(res)
    const seqs = messages.map((m) => Number(m.id))
    expect(seqs).toEqual(Array.from({ length: count + 1 }, (_, i) => i + 1))
    expect(messages.at(-1)!.event).toBe('case.result')
  })

  it('is unregistered when it hangs up while backpressured (real socket)', async () => {
    const { app, create } = setup()
    const { id, session } = await create()
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
    })
    const { port } = server.address() as { port: number }
    const socket = connect(port, '127.0.0.1')
    const firstBytes = new Promise<void>((resolve) => socket.once('data', () => resolve()))
    socket.write(`GET /v1/sessions/${id}/results HTTP/1.1\r\nHost: x\r\n\r\n`)
    await firstBytes
    socket.pause() // stop reading: the socket's buffers fill, then the response is backpressured
    const subscribers = async () => ((await (await app.request(`/v1/sessions/${id}`)).json()) as any).subscribers as number
    expect(await subscribers()).toBe(1)
    flood(session.log, 5_000) // ~10 MB, far more than loopback buffers hold
    socket.destroy()
    await vi.waitFor(async () => expect(await subscribers()).toBe(0), { timeout: 10_000, interval: 20 })
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
})

describe('heartbeats and frames', () => {
  it('sends a heartbeat while idle, and results as they come', async () => {
    const log = createResultLog(memoryResultStorage())
    const reader = resultSource({ log, endSeq: undefined }, { after: 0, heartbeatMs: 10 }).getReader()
    expect((await reader.read()).value).toEqual({ text: ': ping\n\n' })
    log.append({ type: 'invocation.started', key: 'started/0', data: { invocation_id: 'e-0', invocation_index: 0 } })
    let chunk = (await reader.read()).value!
    while ('text' in chunk) chunk = (await reader.read()).value!
    expect(chunk.results.map((e) => e.seq)).toEqual([1])
    expect((await reader.read()).value).toEqual({ text: ': ping\n\n' })
    await reader.cancel()
    expect(log.subscriberCount()).toBe(0)
  })

  it('frames a batch exactly as one formatSseMessage per result, split past MAX_BATCH_CHARS', async () => {
    const events: ResultEvent[] = Array.from({ length: 100 }, (_, i) => ({
      seq: i + 1,
      type: 'case.result',
      key: `k/${i}`,
      data: { text: `line\n${'y'.repeat(1_500)}`, i },
    }))
    const chunks: string[] = []
    const source = new ReadableStream<ResultChunk>({
      start(controller) {
        controller.enqueue({ results: events })
        controller.enqueue({ text: ': ping\n\n' })
        controller.close()
      },
    })
    await source
      .pipeThrough(sseResultFrames())
      .pipeTo(new WritableStream({ write: (c) => void chunks.push(new TextDecoder().decode(c)) }))
    const expected = events.map((e) => formatSseMessage({ id: String(e.seq), event: e.type, data: JSON.stringify(e.data) })).join('')
    expect(chunks.join('')).toBe(expected + ': ping\n\n')
    expect(chunks.length).toBeGreaterThan(2)
    expect(chunks.slice(0, -2).every((c) => c.length >= MAX_BATCH_CHARS)).toBe(true)
  })
})

describe('one batch, one encoding, however many subscribers', () => {
  /** Every chunk a stream of these batches writes, as the bytes objects it enqueued. */
  const written = async (batches: ResultChunk[]) => {
    const chunks: Uint8Array[] = []
    const source = new ReadableStream<ResultChunk>({
      start(c) {
        for (const b of batches) c.enqueue(b)
        c.close()
      },
    })
    await source.pipeThrough(sseResultFrames()).pipeTo(new WritableStream({ write: (c) => void chunks.push(c) }))
    return chunks
  }

  it("a session's subscribers write the bytes the first one encoded; a different batch is encoded for itself", async () => {
    const log = createResultLog(memoryResultStorage())
    flood(log, 5)
    const events = log.readAfter(0)
    const first = await written([{ results: events }])
    const second = await written([{ results: events.slice() }])
    // The same objects: the second stream writes the first stream's bytes, not a copy.
    expect(second).toHaveLength(first.length)
    second.forEach((chunk, i) => expect(chunk).toBe(first[i]))
    const expected = events.map((e) => formatSseMessage({ id: String(e.seq), event: e.type, data: JSON.stringify(e.data) })).join('')
    expect(new TextDecoder().decode(second[0])).toBe(expected)

    // Part of it (other first result), or equal results read back as other objects: bytes of their own, right ones.
    const part = await written([{ results: events.slice(1) }])
    expect(part[0]).not.toBe(first[0])
    expect(new TextDecoder().decode(part[0])).toBe(expected.slice(expected.indexOf('event:', 1)))
    const copies = events.map((e) => ({ ...e, data: { ...e.data } }))
    const again = await written([{ results: copies }])
    expect(again[0]).not.toBe(first[0])
    expect(again[0]).toEqual(first[0])
  })
})

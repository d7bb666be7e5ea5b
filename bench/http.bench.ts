/**
 * Events per second through the whole Node service (POST events -> decode -> score -> SSE results
 * out), side by side with three relays that parse the SSE body with eventsource-parser and write
 * each event back with hono's streamSSE: one write per event; one write per body chunk (a batching
 * relay: the service batches its result frames too); and one write per event whose JSON is parsed
 * and serialised again on the way (a parsing relay: the least any service that reads the events
 * does, and the baseline the service is held to). Same body,
 * same transport (HTTP/1.1 on loopback, one process), same run. The service runs two ways:
 *
 * - four requests: create, a subscriber on GET /results, POST /events with the whole body, POST
 *   /end; timed from the upload until the subscriber has the case.result;
 * - duplex: create, then one POST /events with `Accept: text/event-stream`, which streams the
 *   results back while the body goes up; timed until its `upload.summary` (the session is not
 *   ended, so there is no case result to build).
 *
 *   npx node bench/http.bench.ts [invocations=2000] [rounds=3]
 *
 * EVALSTREAM_ENGINE=/abs/path/engine.ts swaps in another module exporting createSessionEngine, to
 * measure an engine change side by side before it lands.
 *
 * A round that is not what it claims stops the benchmark with exit code 1: every request's status
 * is checked, the service must stream exactly the results GET /v1/sessions/{id} says it logged
 * (ending with case.result, or with upload.summary in the duplex form), and each relay must
 * re-emit every event. Each round has its own session, deleted after it, and runs after a GC (with
 * --expose-gc) so rounds do not share garbage.
 */
import { readFileSync } from 'node:fs'
import { serve } from '@hono/node-server'
import { createParser } from 'eventsource-parser'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import { createApp } from '../src/http/app.ts'
import { memorySessionStore } from '../src/session/store.ts'

const INVOCATIONS = Number(process.argv[2] ?? 2000)
const ROUNDS = Number(process.argv[3] ?? 3)
const SAMPLE = readFileSync(new URL('../test/fixtures/shared/samples/adk-js-weather.sse', import.meta.url), 'utf8')
const FRAMES = SAMPLE.split(/(?<=\n\n)/).filter((f) => f.startsWith('data: '))
const CONFIG = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 } }

/** Events in each body built, so a round can check that all of them went through. */
const EVENTS_OF = new Map<string, number>()

/** The weather run repeated, each copy its own invocation (as a long multi-turn session). */
function body(invocations: number): { text: string; events: number } {
  const id = /e-a899f5c0-0a05-4e99-8149-ceda68159f27/g
  const parts: string[] = []
  for (let i = 0; i < invocations; i++) for (const f of FRAMES) parts.push(f.replace(id, `e-${i}`))
  const text = parts.join('')
  EVENTS_OF.set(text, invocations * FRAMES.length)
  return { text, events: invocations * FRAMES.length }
}

function listen(fetch: (r: Request) => Response | Promise<Response>): Promise<{ url: string; close(): void }> {
  return new Promise((resolve) => {
    const server = serve(
      { fetch, port: 0, hostname: '127.0.0.1' },
      (info) => resolve({ url: `http://127.0.0.1:${info.port}`, close: () => server.close() }),
    )
  })
}

async function drain(response: Response, until?: (text: string) => boolean): Promise<number> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader()
  let count = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return count
    count++
    if (until?.(value.event ?? '')) {
      await reader.cancel()
      return count
    }
  }
}

/** Fails the run: a benchmark of requests that did not do their work measures nothing. */
function check(ok: boolean, what: string): void {
  if (ok) return
  console.error(`broken round: ${what}`)
  process.exit(1)
}

async function expectStatus(response: Promise<Response>, status: number, what: string): Promise<Response> {
  const res = await response
  if (res.status !== status) check(false, `${what} answered ${res.status}, not ${status}: ${(await res.text()).slice(0, 300)}`)
  return res
}

async function createSession(url: string, id: string): Promise<void> {
  const create = fetch(`${url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: id, eval_config: CONFIG }),
  })
  await (await expectStatus(create, 201, 'POST /v1/sessions')).arrayBuffer()
}

/** The round did its work: the upload took every event and the stream carried every logged result. Then the session goes. */
async function checkAndDelete(url: string, id: string, text: string, accepted: number | undefined, results: number): Promise<void> {
  const snapshot = (await (await expectStatus(fetch(`${url}/v1/sessions/${id}`), 200, 'GET session')).json()) as { last_seq: number }
  check(accepted === EVENTS_OF.get(text), `session ${id}: the upload accepted ${accepted} of ${EVENTS_OF.get(text)} events`)
  check(
    snapshot.last_seq > 0 && results === snapshot.last_seq,
    `session ${id}: streamed ${results} results, the session logged ${snapshot.last_seq}`,
  )
  await expectStatus(fetch(`${url}/v1/sessions/${id}`, { method: 'DELETE' }), 204, 'DELETE session')
}

async function evalstreamRound(url: string, text: string, n: number): Promise<{ ms: number; results: number }> {
  const id = `bench-${n}`
  await createSession(url, id)
  const subscriber = await expectStatus(fetch(`${url}/v1/sessions/${id}/results`), 200, 'GET results')
  const t0 = performance.now()
  const received = drain(subscriber, (event) => event === 'case.result')
  const upload = fetch(`${url}/v1/sessions/${id}/events`, { method: 'POST', headers: { 'content-type': 'text/event-stream' }, body: text })
  const summary = (await (await expectStatus(upload, 202, 'POST events')).json()) as { accepted?: number; rejected?: unknown[] }
  await (await expectStatus(fetch(`${url}/v1/sessions/${id}/end`, { method: 'POST' }), 200, 'POST end')).arrayBuffer()
  const results = await received
  const ms = performance.now() - t0
  await checkAndDelete(url, id, text, summary.accepted, results)
  return { ms, results }
}

async function duplexRound(url: string, text: string, n: number): Promise<{ ms: number; results: number }> {
  const id = `duplex-${n}`
  await createSession(url, id)
  const t0 = performance.now()
  const upload = fetch(`${url}/v1/sessions/${id}/events`, {
    method: 'POST',
    headers: { 'content-type': 'text/event-stream', accept: 'text/event-stream' },
    body: text,
  })
  let summary: { accepted?: number } | undefined
  const reader = (await expectStatus(upload, 200, 'POST events (duplex)')).body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream()).getReader()
  let results = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (value.event === 'upload.summary') summary = JSON.parse(value.data)
    else results++
  }
  const ms = performance.now() - t0
  await checkAndDelete(url, id, text, summary?.accepted, results)
  return { ms, results }
}

async function relayRound(url: string, text: string, path = '/relay'): Promise<{ ms: number; results: number }> {
  const t0 = performance.now()
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'text/event-stream' }, body: text })
  const results = await drain(res)
  check(
    res.status === 200 && results === EVENTS_OF.get(text),
    `the relay answered ${res.status} with ${results} of ${EVENTS_OF.get(text)} frames`,
  )
  return { ms: performance.now() - t0, results }
}

/** One SSE frame as hono's writeSSE writes it (each data line prefixed). */
const frame = (e: { event?: string; id?: string; data: string }) =>
  `${e.event ? `event: ${e.event}\n` : ''}${e.data.split('\n').map((l) => `data: ${l}`).join('\n')}\n${e.id ? `id: ${e.id}\n` : ''}\n`

const relay = new Hono()
  .post('/relay', (c) =>
    streamSSE(c, async (stream) => {
      const events = c.req.raw.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
      for await (const e of events) await stream.writeSSE({ data: e.data, event: e.event, id: e.id })
    }))
  // Each event's data read as JSON and written again: the least a service that reads its events pays.
  .post('/relay-parsed', (c) =>
    streamSSE(c, async (stream) => {
      const events = c.req.raw.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
      for await (const e of events) await stream.writeSSE({ data: JSON.stringify(JSON.parse(e.data)), event: e.event, id: e.id })
    }))
  // Every event parsed from one chunk of the body goes back in one write.
  .post('/relay-batched', (c) =>
    streamSSE(c, async (stream) => {
      let batch = ''
      const parser = createParser({ onEvent: (e) => void (batch += frame(e)) })
      for await (const chunk of c.req.raw.body!.pipeThrough(new TextDecoderStream())) {
        parser.feed(chunk)
        if (batch === '') continue
        await stream.write(batch)
        batch = ''
      }
    }))

const { createSessionEngine } = (await import(
  process.env.EVALSTREAM_ENGINE ?? '../src/engine/session-engine.ts'
)) as typeof import('../src/engine/session-engine.ts')
const { text, events } = body(INVOCATIONS)
const app = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o) })
const service = await listen(app.fetch)
const bare = await listen(relay.fetch)
console.log(`body: ${events} events (${INVOCATIONS} invocations), ${(text.length / 1e6).toFixed(1)} MB; Node ${process.version}`)
const warm = body(50).text
await evalstreamRound(service.url, warm, -1) // warm-up
await duplexRound(service.url, warm, -1)
await relayRound(bare.url, warm)
await relayRound(bare.url, warm, '/relay-batched')
await relayRound(bare.url, warm, '/relay-parsed')
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const rate = (ms: number) => Math.round(events / (ms / 1000)).toLocaleString('en-US')
const pct = (service: number, relay: number) => `${((100 * relay) / service).toFixed(0)}%`
for (let r = 0; r < ROUNDS; r++) {
  gc()
  const four = await evalstreamRound(service.url, text, r)
  gc()
  const duplex = await duplexRound(service.url, text, r)
  gc()
  const each = await relayRound(bare.url, text)
  gc()
  const batched = await relayRound(bare.url, text, '/relay-batched')
  gc()
  const parsed = await relayRound(bare.url, text, '/relay-parsed')
  console.log(
    `round ${r + 1}: evalstream 4 requests ${rate(four.ms)} events/s (${four.results} results), duplex ${
      rate(duplex.ms)
    } events/s (${duplex.results} results)` +
      ` | relay per event ${rate(each.ms)}, batched ${rate(batched.ms)}, parsing ${rate(parsed.ms)} events/s` +
      ` | 4 requests / relay ${pct(four.ms, each.ms)}, duplex / relay ${pct(duplex.ms, each.ms)}` +
      ` | vs batched: ${pct(four.ms, batched.ms)}, ${pct(duplex.ms, batched.ms)}` +
      ` | vs parsing: ${pct(four.ms, parsed.ms)}, ${pct(duplex.ms, parsed.ms)}`,
  )
}
service.close()
bare.close()

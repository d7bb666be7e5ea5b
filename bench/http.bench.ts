/**
 * Events per second through the whole Node service (POST events -> decode -> score -> SSE results
 * out to a subscriber), side by side with a bare relay that only parses the SSE body with
 * eventsource-parser and re-emits each event with hono's streamSSE. Same body, same machine, same run.
 *
 *   npx node bench/http.bench.ts [invocations=2000] [rounds=3]
 *
 * EVALSTREAM_ENGINE=/abs/path/engine.ts swaps in another module exporting createSessionEngine, to
 * measure an engine change side by side before it lands.
 */
import { readFileSync } from 'node:fs'
import { serve } from '@hono/node-server'
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

/** The weather run repeated, each copy its own invocation (as a long multi-turn session). */
function body(invocations: number): { text: string; events: number } {
  const id = /e-a899f5c0-0a05-4e99-8149-ceda68159f27/g
  const parts: string[] = []
  for (let i = 0; i < invocations; i++) for (const f of FRAMES) parts.push(f.replace(id, `e-${i}`))
  return { text: parts.join(''), events: invocations * FRAMES.length }
}

function listen(fetch: (r: Request) => Response | Promise<Response>): Promise<{ url: string; close(): void }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, close: () => server.close() }),
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

async function evalstreamRound(url: string, text: string, n: number): Promise<{ ms: number; results: number }> {
  const id = `bench-${n}`
  await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: id, eval_config: CONFIG }) })
  const subscriber = await fetch(`${url}/v1/sessions/${id}/results`)
  const t0 = performance.now()
  const received = drain(subscriber, (event) => event === 'case.result')
  await fetch(`${url}/v1/sessions/${id}/events`, { method: 'POST', headers: { 'content-type': 'text/event-stream' }, body: text })
  await fetch(`${url}/v1/sessions/${id}/end`, { method: 'POST' })
  const results = await received
  return { ms: performance.now() - t0, results }
}

async function relayRound(url: string, text: string): Promise<{ ms: number; results: number }> {
  const t0 = performance.now()
  const res = await fetch(`${url}/relay`, { method: 'POST', headers: { 'content-type': 'text/event-stream' }, body: text })
  const results = await drain(res)
  return { ms: performance.now() - t0, results }
}

const relay = new Hono().post('/relay', (c) =>
  streamSSE(c, async (stream) => {
    const events = c.req.raw.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
    for await (const e of events) await stream.writeSSE({ data: e.data, event: e.event, id: e.id })
  }),
)

const { createSessionEngine } = (await import(
  process.env.EVALSTREAM_ENGINE ?? '../src/engine/session-engine.ts'
)) as typeof import('../src/engine/session-engine.ts')
const { text, events } = body(INVOCATIONS)
const app = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o) })
const service = await listen(app.fetch)
const bare = await listen(relay.fetch)
console.log(`body: ${events} events (${INVOCATIONS} invocations), ${(text.length / 1e6).toFixed(1)} MB; Node ${process.version}`)
await evalstreamRound(service.url, body(50).text, -1) // warm-up
await relayRound(bare.url, body(50).text)
for (let r = 0; r < ROUNDS; r++) {
  const e = await evalstreamRound(service.url, text, r)
  const b = await relayRound(bare.url, text)
  const rate = (ms: number) => Math.round(events / (ms / 1000)).toLocaleString('en-US')
  console.log(
    `round ${r + 1}: evalstream ${rate(e.ms)} events/s (${e.results} results, ${e.ms.toFixed(0)} ms) | bare relay ${rate(b.ms)} events/s (${b.results} frames, ${b.ms.toFixed(0)} ms) | evalstream/relay ${((100 * b.ms) / e.ms).toFixed(0)}%`,
  )
}
service.close()
bare.close()

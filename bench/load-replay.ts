/**
 * The load bench's baseline server: the same HTTP surface and the same bytes on the wire as the
 * service, with none of the work. What a user would run instead of a scoring service is a relay,
 * and this is the fastest honest one for this load: Hono on @hono/node-server (what `npm start`
 * runs), sessions in a Map, each NDJSON upload split and `JSON.parse`d line by line, and for each
 * upload the frames the service sends for that invocation written to every subscriber in one write
 * (Hono's `streamSSE`), numbered as the service numbers them.
 *
 * The frames are the service's own: at start-up the real app (memory store, same engine) scores one
 * session of the load case (as many invocations as the bench's sessions have), and its result stream is cut per invocation into
 * templates; `/end` answers that session's case result and `GET /v1/sessions/{id}` its snapshot
 * (with this session's last seq). So the load client reads the same bytes from either server; the
 * difference between the two runs is scoring, storing, admission and the service's own streaming.
 *
 * With EVALSTREAM_REPLAY_STORE=FILE it is the storing replay: each session's spec, every event line
 * and every frame it sends go into a SQLite file and are committed before the upload is answered
 * and the frames are written (bench/load-replay-store.ts). Then the difference is scoring,
 * admission and the service's own streaming and storage layout.
 *
 *   node bench/load-replay.ts   (PORT, EVALSTREAM_REPLAY_INVOCATIONS and EVALSTREAM_REPLAY_STORE
 *                                from the environment; prints "listening" when ready)
 */
import { createAdaptorServer } from '@hono/node-server'
import { createParser } from 'eventsource-parser'
import { Hono } from 'hono'
import { type SSEStreamingApi, streamSSE } from 'hono/streaming'
import type { Server } from 'node:http'
import { createSessionEngine } from '../src/engine/session-engine.ts'
import { createApp } from '../src/http/app.ts'
import { memorySessionStore } from '../src/session/store.ts'
import { CONFIG, invocationBody, loadCase } from './load-case.ts'
import { replayStore } from './load-replay-store.ts'

type Frame = { event: string; data: string }

/**
 * The service's answers for one session of `invocations` invocations: its result stream frame by
 * frame, its `/end` answer (the case result) and its snapshot once ended.
 */
async function serviceAnswers(invocations: number): Promise<{ frames: Frame[]; ended: string; snapshot: string }> {
  const app = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o) })
  const json = { 'content-type': 'application/json' }
  const body = JSON.stringify({ session_id: 'template', eval_config: CONFIG, eval_case: loadCase(invocations) })
  if ((await app.request('/v1/sessions', { method: 'POST', headers: json, body })).status !== 201) {
    throw new Error('the template session was not created')
  }
  for (let k = 0; k < invocations; k++) {
    const res = await app.request('/v1/sessions/template/events', {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: invocationBody(k),
    })
    if (res.status !== 202) throw new Error(`the template upload ${k} answered ${res.status}`)
  }
  const ended = await (await app.request('/v1/sessions/template/end', { method: 'POST' })).text()
  const frames: Frame[] = []
  const parser = createParser({ onEvent: (e) => void frames.push({ event: e.event ?? 'message', data: e.data }) })
  parser.feed(await (await app.request('/v1/sessions/template/results')).text())
  const snapshot = await (await app.request('/v1/sessions/template')).text()
  return { frames, ended, snapshot }
}

/**
 * Per invocation index, its frames; then the frames after the last invocation (the case result).
 * Every frame the service sends for an invocation carries its `invocation_index`.
 */
function templates(frames: Frame[], invocations: number): { perInvocation: Frame[][]; closing: Frame[] } {
  const perInvocation: Frame[][] = Array.from({ length: invocations }, () => [])
  const closing: Frame[] = []
  for (const frame of frames) {
    const index = (JSON.parse(frame.data) as { invocation_index?: unknown }).invocation_index
    if (typeof index === 'number' && index < invocations) perInvocation[index]!.push(frame)
    else closing.push(frame)
  }
  return { perInvocation, closing }
}

const sseFrame = (f: Frame, seq: number) => `event: ${f.event}\ndata: ${f.data}\nid: ${seq}\n\n`

/** The load case's invocation count (the bench's `--events / 4`, passed by bench/load.ts); frames repeat past it. */
const TEMPLATE_INVOCATIONS = Number(process.env.EVALSTREAM_REPLAY_INVOCATIONS ?? 50)
const answers = await serviceAnswers(TEMPLATE_INVOCATIONS)
const { perInvocation, closing } = templates(answers.frames, TEMPLATE_INVOCATIONS)
const LAST_SEQ = /"last_seq":\d+/
if (!LAST_SEQ.test(answers.snapshot)) throw new Error('the template snapshot has no last_seq')

type Session = {
  seq: number
  events: number
  invocations: number
  subscribers: Set<SSEStreamingApi>
  ended: Promise<void>
  end: () => void
}
const sessions = new Map<string, Session>()
const storePath = process.env.EVALSTREAM_REPLAY_STORE
const store = storePath ? replayStore(storePath) : undefined

/** The frames as one string, each numbered after the session's last (and stored, when storing). */
function framesText(id: string, session: Session, frames: Frame[]): string {
  let text = ''
  for (const f of frames) {
    const seq = ++session.seq
    store?.result(id, seq, f.event, f.data)
    text += sseFrame(f, seq)
  }
  return text
}

/** Writes the text to every subscriber in one write (when storing, once what it says is committed). */
function publish(session: Session, text: string): void {
  for (const s of session.subscribers) void s.write(text)
}

const app = new Hono()
  .post('/v1/sessions', async (c) => {
    const text = await c.req.text()
    const spec = JSON.parse(text) as { session_id?: string; eval_case?: { conversation?: unknown[] } }
    if (typeof spec.session_id !== 'string' || sessions.has(spec.session_id)) return c.json({ error: 'bad session_id' }, 400)
    let end = () => {}
    const ended = new Promise<void>((resolve) => (end = resolve))
    sessions.set(spec.session_id, { seq: 0, events: 0, invocations: 0, subscribers: new Set(), ended, end })
    if (store) {
      store.session(spec.session_id, text)
      await store.committed()
    }
    return c.json({ session_id: spec.session_id }, 201)
  })
  .get('/v1/sessions/:id/results', (c) => {
    const session = sessions.get(c.req.param('id'))
    if (!session) return c.json({ error: 'no such session' }, 404)
    return streamSSE(c, async (stream) => {
      session.subscribers.add(stream)
      await session.ended
    })
  })
  .post('/v1/sessions/:id/events', async (c) => {
    const id = c.req.param('id')
    const session = sessions.get(id)
    if (!session) return c.json({ error: 'no such session' }, 404)
    let accepted = 0
    for (const line of (await c.req.text()).split('\n')) {
      if (line === '') continue
      JSON.parse(line)
      store?.event(id, ++session.events, line)
      accepted++
    }
    const text = framesText(id, session, perInvocation[session.invocations++ % TEMPLATE_INVOCATIONS]!)
    if (store) await store.committed()
    publish(session, text)
    return c.json({ accepted }, 202)
  })
  .post('/v1/sessions/:id/end', async (c) => {
    const id = c.req.param('id')
    const session = sessions.get(id)
    if (!session) return c.json({ error: 'no such session' }, 404)
    const text = framesText(id, session, closing)
    if (store) await store.committed()
    publish(session, text)
    session.end()
    return c.body(answers.ended, 200, { 'content-type': 'application/json' })
  })
  .get('/v1/sessions/:id', (c) => {
    const session = sessions.get(c.req.param('id'))
    if (!session) return c.json({ error: 'no such session' }, 404)
    const snapshot = answers.snapshot.replace(LAST_SEQ, `"last_seq":${session.seq}`)
    return c.body(snapshot, 200, { 'content-type': 'application/json' })
  })

const server = createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' }) as Server
// The same keep-alive as the service, so both keep their clients' connections.
server.keepAliveTimeout = 65_000
server.headersTimeout = 66_000
server.listen(Number(process.env.PORT ?? 8788), '127.0.0.1', () => console.log('listening'))

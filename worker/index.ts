/**
 * Cloudflare Workers entry. Each session lives in its own Durable Object (`SESSIONS.idFromName`),
 * which runs the full API for it; the Worker only decides which object a request belongs to.
 * Requests that belong to no session (health, catalogue, ADK routes in proxy mode) are answered by
 * the same app here, statelessly.
 */
import { createApp } from '../src/http/app.ts'
import { problem } from '../src/http/problem.ts'
import { SESSION_HEADER } from '../src/http/proxy.ts'
import { memorySessionStore } from '../src/host/session-store.ts'
import { depsFromEnv } from '../src/host/setup.ts'
import { Hono } from 'hono'
import { EvalSession } from './session-object.ts'
import { stringEnv, type WorkerEnv } from './types.ts'

export { EvalSession }

const SESSION_PATH = /^\/v1\/sessions\/([^/]+)(?:\/.*)?$/

function toObject(env: WorkerEnv, sessionId: string, request: Request): Promise<Response> {
  return env.SESSIONS.get(env.SESSIONS.idFromName(sessionId)).fetch(request)
}

function parseObject(text: string): Record<string, unknown> | undefined | 'invalid' {
  if (text.trim() === '') return {}
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return 'invalid'
  }
}

const router = new Hono<{ Bindings: WorkerEnv }>()

router.post('/v1/sessions', async (c) => {
  const text = await c.req.text()
  const body = parseObject(text)
  if (body === 'invalid') return problem(c, 400, 'Invalid JSON', 'the request body is not JSON')
  // The id picks the object, so it is assigned here; a malformed one is the object's to refuse.
  const id = body && typeof body.session_id === 'string' ? body.session_id : crypto.randomUUID()
  const forwarded = body && body.session_id === undefined ? JSON.stringify({ ...body, session_id: id }) : text
  return toObject(c.env, id, new Request(c.req.url, { method: 'POST', headers: c.req.raw.headers, body: forwarded }))
})

router.all('/v1/sessions/*', (c) => {
  const match = SESSION_PATH.exec(new URL(c.req.url).pathname)
  if (!match) return problem(c, 404, 'Not found', `no route ${c.req.method} ${new URL(c.req.url).pathname}`)
  return toObject(c.env, decodeURIComponent(match[1]!), c.req.raw)
})

router.post('/run_sse', async (c) => {
  const text = await c.req.text()
  const body = parseObject(text)
  const adkId = body && body !== 'invalid' ? (body.sessionId ?? body.session_id) : undefined
  const id = c.req.header(SESSION_HEADER) ?? (typeof adkId === 'string' && adkId !== '' ? adkId : undefined)
  const request = new Request(c.req.url, { method: 'POST', headers: c.req.raw.headers, body: text })
  return id ? toObject(c.env, id, request) : stateless(c.env).fetch(request)
})

router.all('*', (c) => stateless(c.env).fetch(c.req.raw))

let cached: { env: WorkerEnv; app: { fetch(r: Request): Response | Promise<Response> } } | undefined
/** The app for session-less routes; its store is never used for sessions. */
function stateless(env: WorkerEnv) {
  if (cached?.env === env) return cached.app
  const setup = depsFromEnv(stringEnv(env), { store: memorySessionStore({ sweeper: 'manual' }) })
  const app = setup.ok ? createApp(setup.deps) : { fetch: () => new Response(setup.error, { status: 500 }) }
  cached = { env, app }
  return app
}

export default { fetch: (request: Request, env: WorkerEnv, ctx: unknown) => router.fetch(request, env, ctx as never) }

/**
 * Cloudflare Workers entry. Each session lives in its own Durable Object (`SESSIONS.idFromName`),
 * which runs the full API for it; the Worker only decides which object a request belongs to.
 * Requests that belong to no session (health, catalogue, ADK routes in proxy mode) are answered by
 * the same app here, statelessly.
 *
 * Auth (docs/auth.md): the router answers CORS and checks the bearer token before any object is
 * woken, so an unauthenticated request costs no Durable Object. It forwards the request with its
 * Authorization header and the object checks the token again itself: the tenant is always derived
 * from the secret token, never from a header a client could set, so there is nothing to forge.
 */
import { createApp } from '../src/http/app.ts'
import { proxySessionId, requireToken, reservedIdProblem, tenantOf } from '../src/http/auth.ts'
import { corsFor } from '../src/http/cors.ts'
import { problem } from '../src/http/problem.ts'
import { SESSION_HEADER } from '../src/http/proxy.ts'
import { memorySessionStore } from '../src/host/session-store.ts'
import { depsFromEnv } from '../src/host/setup.ts'
import { Hono, type MiddlewareHandler } from 'hono'
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

const router = new Hono<{ Bindings: WorkerEnv; Variables: { configured: Configured } }>()

// Fail closed: a deployment whose variables do not parse (a malformed EVALSTREAM_TOKENS above all)
// serves nothing, rather than serving it open.
router.use('*', async (c, next) => {
  const setup = configured(c.env)
  if (!setup.ok) return problem(c, 500, 'Misconfigured deployment', setup.error)
  c.set('configured', setup)
  return setup.cors(c, next)
})
router.use('*', (c, next) => c.var.configured.auth(c, next))

router.post('/v1/sessions', async (c) => {
  const text = await c.req.text()
  const body = parseObject(text)
  if (body === 'invalid') return problem(c, 400, 'Invalid JSON', 'the request body is not JSON')
  // The id picks the object, so it is assigned here; a malformed one is the object's to refuse.
  const id = body && typeof body.session_id === 'string' ? body.session_id : crypto.randomUUID()
  // Refused here too, so another tenant's id namespace does not even wake an object.
  const reserved = reservedIdProblem(tenantOf(c), id)
  if (reserved) return problem(c, 400, 'Invalid session request', reserved)
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
  const adkScoped = typeof adkId === 'string' && adkId !== '' ? proxySessionId(tenantOf(c), adkId) : undefined
  const id = c.req.header(SESSION_HEADER) ?? adkScoped
  const request = new Request(c.req.url, { method: 'POST', headers: c.req.raw.headers, body: text })
  return id ? toObject(c.env, id, request) : c.var.configured.app.fetch(request)
})

router.all('*', (c) => c.var.configured.app.fetch(c.req.raw))

type Configured = {
  ok: true
  /** Session-less routes; the router already answered CORS, so this app adds none. */
  app: { fetch(r: Request): Response | Promise<Response> }
  cors: MiddlewareHandler
  auth: MiddlewareHandler
}
let cached: { env: WorkerEnv; value: Configured | { ok: false; error: string } } | undefined

/** Parsed once per env object (once per isolate in practice). */
function configured(env: WorkerEnv): Configured | { ok: false; error: string } {
  if (cached?.env === env) return cached.value
  const setup = depsFromEnv(stringEnv(env), { store: memorySessionStore() })
  const value = setup.ok
    ? {
        ok: true as const,
        app: createApp({ ...setup.deps, cors: undefined }),
        cors: corsFor(setup.deps.cors),
        auth: requireToken(setup.deps.auth),
      }
    : { ok: false as const, error: setup.error }
  cached = { env, value }
  return value
}

export default { fetch: (request: Request, env: WorkerEnv, ctx: unknown) => router.fetch(request, env, ctx as never) }

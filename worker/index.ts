/**
 * Cloudflare Workers entry. Each session lives in its own Durable Object (`SESSIONS.idFromName`),
 * which runs the full API for it; the Worker only decides which object a request belongs to.
 * Requests that belong to no session (health, catalogue, ADK routes in proxy mode) are answered by
 * the same app here, statelessly. Bodies the Worker must read to route are held to the same limits
 * as everywhere (src/ingest/limits.ts).
 */
import { createApp } from '../src/http/app.ts'
import { parseCreateBody, resolveCreateRequest } from '../src/http/create-request.ts'
import { problem } from '../src/http/problem.ts'
import { SESSION_HEADER } from '../src/http/proxy.ts'
import { readTextLimited } from '../src/http/read-body.ts'
import { memorySessionStore } from '../src/host/session-store.ts'
import { depsFromEnv } from '../src/host/setup.ts'
import { type Limits, limitsFromEnv, utf8ByteLength } from '../src/ingest/index.ts'
import { Hono, type Context } from 'hono'
import { EvalSession } from './session-object.ts'
import { WORKER_MAX_SPEC_BYTES } from './spec-limit.ts'
import { stringEnv, type WorkerEnv } from './types.ts'

export { EvalSession }

const SESSION_PATH = /^\/v1\/sessions\/([^/]+)(?:\/.*)?$/

function toObject(env: WorkerEnv, sessionId: string, request: Request): Promise<Response> {
  return env.SESSIONS.get(env.SESSIONS.idFromName(sessionId)).fetch(request)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The same request with a new body (its Content-Length no longer applies). */
function withBody(request: Request, body: string): Request {
  const headers = new Headers(request.headers)
  headers.delete('content-length')
  return new Request(request.url, { method: request.method, headers, body })
}

const router = new Hono<{ Bindings: WorkerEnv }>()

let limitsCache: { env: WorkerEnv; limits: ReturnType<typeof limitsFromEnv> } | undefined
function limitsOf(env: WorkerEnv): ReturnType<typeof limitsFromEnv> {
  if (limitsCache?.env !== env) limitsCache = { env, limits: limitsFromEnv(stringEnv(env)) }
  return limitsCache.limits
}

function withLimits(c: Context<{ Bindings: WorkerEnv }>, then: (limits: Limits) => Promise<Response>): Promise<Response> | Response {
  const limits = limitsOf(c.env)
  return limits.ok ? then(limits.limits) : problem(c, 500, 'Misconfigured deployment', limits.error)
}

router.post('/v1/sessions', (c) =>
  withLimits(c, async (limits) => {
    const body = await parseCreateBody(c.req.raw, limits)
    if (!body.ok) return problem(c, body.problem.status, body.problem.title, body.problem.detail, body.problem.extensions)
    const value = isRecord(body.value) ? body.value : undefined
    // The id picks the object, so it is assigned here; a malformed one is the object's to refuse.
    const id = value && typeof value.session_id === 'string' ? value.session_id : crypto.randomUUID()
    const forwarded = value && value.session_id === undefined ? { ...value, session_id: id } : body.value
    const request = resolveCreateRequest(forwarded)
    if (request.ok) {
      const spec = { session_id: id, eval_config: request.eval_config, eval_case: request.eval_case }
      const bytes = utf8ByteLength(JSON.stringify(spec))
      if (bytes > WORKER_MAX_SPEC_BYTES)
        return problem(
          c,
          413,
          'Session spec too large',
          `eval_config and eval_case take ${bytes} bytes; a session on Workers stores at most ${WORKER_MAX_SPEC_BYTES} (one Durable Object SQLite row)`,
          { limit: { name: 'WORKER_MAX_SPEC_BYTES', value: WORKER_MAX_SPEC_BYTES } },
        )
    }
    return toObject(c.env, id, withBody(c.req.raw, JSON.stringify(forwarded)))
  }),
)

router.all('/v1/sessions/*', (c) => {
  const path = new URL(c.req.url).pathname
  const match = SESSION_PATH.exec(path)
  if (!match) return problem(c, 404, 'Not found', `no route ${c.req.method} ${path}`)
  let id: string
  try {
    id = decodeURIComponent(match[1]!)
  } catch {
    return problem(c, 400, 'Invalid session path', `'${match[1]}' is not a valid percent-encoded session id`)
  }
  return toObject(c.env, id, c.req.raw)
})

router.post('/run_sse', (c) =>
  withLimits(c, async (limits) => {
    // The session id may be in the body, so the body is read here, as a stream under the byte limit.
    const read = await readTextLimited(c.req.raw, limits.maxRequestBytes)
    if (!read.ok && read.reason === 'broken') return problem(c, 400, 'Body could not be read', read.error)
    if (!read.ok) {
      const detail = `the body is more than ${limits.maxRequestBytes} bytes (EVALSTREAM_MAX_REQUEST_BYTES=${limits.maxRequestBytes})`
      return problem(c, 413, 'Request body too large', detail, {
        limit: { name: 'EVALSTREAM_MAX_REQUEST_BYTES', value: limits.maxRequestBytes },
      })
    }
    const body = parseObject(read.text)
    const adkId = body ? (body.sessionId ?? body.session_id) : undefined
    const id = c.req.header(SESSION_HEADER) ?? (typeof adkId === 'string' && adkId !== '' ? adkId : undefined)
    const request = withBody(c.req.raw, read.text)
    return id ? toObject(c.env, id, request) : stateless(c.env).fetch(request)
  }),
)

router.all('*', (c) => stateless(c.env).fetch(c.req.raw))

/** Only the top-level ids are read, so no depth check is needed: JSON.parse itself is iterative. */
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

let cached: { env: WorkerEnv; app: { fetch(r: Request): Response | Promise<Response> } } | undefined
/** The app for session-less routes; its store is never used for sessions. */
function stateless(env: WorkerEnv) {
  if (cached?.env === env) return cached.app
  const setup = depsFromEnv(stringEnv(env), { store: memorySessionStore() })
  const app = setup.ok ? createApp(setup.deps) : { fetch: () => new Response(setup.error, { status: 500 }) }
  cached = { env, app }
  return app
}

export default { fetch: (request: Request, env: WorkerEnv, ctx: unknown) => router.fetch(request, env, ctx as never) }

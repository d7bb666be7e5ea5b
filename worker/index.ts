/**
 * Cloudflare Workers entry. Each session lives in its own Durable Object (`SESSIONS.idFromName`),
 * which runs the full API for it; the Worker only decides which object a request belongs to.
 * Requests that belong to no session (health, catalogue, ADK routes in proxy mode) are answered by
 * the same app here, statelessly. Bodies the Worker must read to route are held to the same limits
 * as everywhere (src/ingest/limits.ts).
 *
 * Auth (docs/auth.md): the router answers CORS and checks the bearer token before any object is
 * woken, so an unauthenticated request costs no Durable Object. It forwards the request with its
 * Authorization header and the object checks the token again itself: the tenant is always derived
 * from the secret token, never from a header a client could set, so there is nothing to forge.
 */
import { createApp } from '../src/http/app.ts'
import { proxySessionId, requireToken, reservedIdProblem, tenantOf } from '../src/http/auth.ts'
import { corsFor } from '../src/http/cors.ts'
import { noSniff } from '../src/http/no-sniff.ts'
import { parseCreateBody, resolveCreateRequest } from '../src/http/create-request.ts'
import { problem } from '../src/http/problem.ts'
import { SESSION_HEADER } from '../src/http/proxy/proxy.ts'
import { isRunSsePath, RUN_SSE_PATH } from '../src/http/proxy/agent-sse.ts'
import { readTextLimited } from '../src/http/read-body.ts'
import { memorySessionStore } from '../src/session/store.ts'
import { depsFromEnv } from '../src/config/setup.ts'
import { DEFAULT_LIMITS, type Limits, utf8ByteLength } from '../src/ingest/index.ts'
import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { EvalSession, EVICT_PATH } from './session-object.ts'
import { EvalRun } from './run-object.ts'
import { EvalSets, OBJECT_NAME_HEADER } from './eval-sets-object.ts'
import { OtlpShard, shardedOtlpMonitor, shardStub } from './otlp-shard.ts'
import { evalSetsObjectName } from './eval-sets-route.ts'
import { EvalIndex } from './index-object.ts'
import { readIndexShards } from './index-shards.ts'
import { type WorkerShards, workerShardsFromEnv } from '../src/config/worker-shards.ts'
import { isDashboardPath } from '../src/http/dashboard/routes.ts'
import { WORKER_MAX_SPEC_BYTES } from './spec-limit.ts'
import { stringEnv, type WorkerEnv } from './types.ts'
import { isRecord } from '../src/adk/json.ts'

export { EvalIndex, EvalRun, EvalSession, EvalSets, OtlpShard }

const SESSION_PATH = /^\/v1\/sessions\/([^/]+)(?:\/.*)?$/
const RUN_PATH = /^\/v1\/runs\/([^/]+)(?:\/.*)?$/

function toObject(env: WorkerEnv, sessionId: string, request: Request): Promise<Response> {
  return env.SESSIONS.get(env.SESSIONS.idFromName(sessionId)).fetch(request)
}

/**
 * To the object of its own kind (RUNS, EVAL_SETS); a deployment whose wrangler.toml has no such
 * binding yet keeps them in SESSIONS objects of the same name, as before those classes existed.
 */
function toNamed(env: WorkerEnv, binding: 'RUNS' | 'EVAL_SETS', name: string, request: Request): Promise<Response> {
  const namespace = env[binding] ?? env.SESSIONS
  return namespace.get(namespace.idFromName(name)).fetch(request)
}

/** Only the top-level ids are read, so no depth check is needed: JSON.parse itself is iterative. */
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** The same request with a new body (its Content-Length no longer applies), at `url` when given. */
function withBody(request: Request, body: string, url = request.url): Request {
  const headers = new Headers(request.headers)
  headers.delete('content-length')
  return new Request(url, { method: request.method, headers, body })
}

const router = new Hono<{ Bindings: WorkerEnv; Variables: { configured: Configured } }>()
// On every answer, the router's own (401, 500, CORS) and the objects' alike.
router.use('*', noSniff)

// Fail closed: a deployment whose variables do not parse (a malformed EVALSTREAM_TOKENS above all)
// serves nothing, rather than serving it open.
router.use('*', async (c, next) => {
  const setup = configured(c.env)
  if (!setup.ok) return problem(c, 'misconfigured', 'Misconfigured deployment', setup.error)
  c.set('configured', setup)
  return setup.cors(c, next)
})
// The dashboard page and its assets are public, as on Node and Deno; the data it shows is not.
router.use('*', async (c, next) => {
  const method = c.req.method
  if ((method === 'GET' || method === 'HEAD') && isDashboardPath(new URL(c.req.url).pathname)) return c.var.configured.app.fetch(c.req.raw)
  return c.var.configured.auth(c, next)
})

// Monitoring across sessions: the caller's tenant's index shards answer, merged here
// (index-shards.ts); the session-less app answers 404 when the deployment has no INDEX binding.
for (const path of ['/v1/results', '/v1/stats', '/v1/sessions']) {
  router.get(
    path,
    (c) =>
      c.env.INDEX
        ? readIndexShards(c.req.raw, c.env.INDEX, tenantOf(c), c.var.configured.shards.index)
        : c.var.configured.app.fetch(c.req.raw),
  )
}

router.post('/v1/sessions', async (c) => {
  const body = await parseCreateBody(c.req.raw, c.var.configured.limits)
  if (!body.ok) return problem(c, body.problem)
  const value = isRecord(body.value) ? body.value : undefined
  // The id picks the object, so it is assigned here; a malformed one is the object's to refuse.
  const id = value && typeof value.session_id === 'string' ? value.session_id : crypto.randomUUID()
  // Refused here too, so another tenant's id namespace does not even wake an object.
  const reserved = reservedIdProblem(tenantOf(c), id)
  if (reserved) return problem(c, 'invalid_request', 'Invalid session request', reserved)
  const forwarded = value && value.session_id === undefined ? { ...value, session_id: id } : body.value
  const request = resolveCreateRequest(forwarded)
  if (request.ok) {
    const spec = { session_id: id, eval_config: request.eval_config, eval_case: request.eval_case }
    const bytes = utf8ByteLength(JSON.stringify(spec))
    if (bytes > WORKER_MAX_SPEC_BYTES) {
      return problem(
        c,
        'spec_too_large',
        'Session spec too large',
        `eval_config and eval_case take ${bytes} bytes; a session on Workers stores at most ${WORKER_MAX_SPEC_BYTES} (one Durable Object SQLite row)`,
        { limit: { name: 'WORKER_MAX_SPEC_BYTES', value: WORKER_MAX_SPEC_BYTES } },
      )
    }
  }
  return toObject(c.env, id, withBody(c.req.raw, JSON.stringify(forwarded)))
})

/**
 * Hands a request under `/v1/<kind>/{id}/...` to the object named by the decoded id (with `prefix`),
 * after the path pattern and the id's percent-encoding were checked.
 */
function toObjectByPath(
  c: Context<{ Bindings: WorkerEnv; Variables: { configured: Configured } }>,
  pattern: RegExp,
  what: 'session' | 'run',
  prefix = '',
): Response | Promise<Response> {
  const path = new URL(c.req.url).pathname
  const match = pattern.exec(path)
  if (!match) return problem(c, 'route_not_found', 'Not found', `no route ${c.req.method} ${path}`)
  let id: string
  try {
    id = decodeURIComponent(match[1]!)
  } catch {
    return problem(c, 'invalid_id', `Invalid ${what} path`, `'${match[1]}' is not a valid percent-encoded ${what} id`)
  }
  const forwarded = what === 'run' ? toNamed(c.env, 'RUNS', `${prefix}${id}`, c.req.raw) : toObject(c.env, `${prefix}${id}`, c.req.raw)
  // The eviction test hook (EVALSTREAM_TEST_HOOKS=1) resets the object inside the request, so the
  // stub's fetch rejects: answered here, or workerd drops the client's connection unanswered.
  if (c.req.method === 'POST' && EVICT_PATH.test(path)) return forwarded.catch(() => new Response(null, { status: 204 }))
  return forwarded
}

router.all('/v1/sessions/*', (c) => toObjectByPath(c, SESSION_PATH, 'session'))

// An eval set run lives in a Durable Object of its own (`run:<id>` in RUNS), so its results outlive
// the request that started it and every later request for it reaches the same object.
router.post('/v1/runs', async (c) => {
  const body = await parseCreateBody(c.req.raw, c.var.configured.limits, 'a run')
  if (!body.ok) return problem(c, body.problem)
  if (!isRecord(body.value)) return problem(c, 'invalid_request', 'Invalid run request', 'the body must be a JSON object')
  const id = typeof body.value.run_id === 'string' ? body.value.run_id : crypto.randomUUID()
  const forwarded = body.value.run_id === undefined ? { ...body.value, run_id: id } : body.value
  return toNamed(c.env, 'RUNS', `run:${id}`, withBody(c.req.raw, JSON.stringify(forwarded)))
})

router.all('/v1/runs/*', (c) => toObjectByPath(c, RUN_PATH, 'run', 'run:'))

// OTLP: decoded here by the session-less app, whose monitor sends each trace's spans to the shard
// object owning it (otlp-shard.ts); without the OTLP binding there is nowhere to assemble them.
for (const path of ['/v1/traces', '/v1/logs']) {
  router.post(
    path,
    (c) =>
      c.env.OTLP ? c.var.configured.app.fetch(c.req.raw) : problem(
        c,
        'not_configured',
        'No OTLP ingest',
        'this deployment has no OTLP Durable Object binding (wrangler.toml), so it takes no traces',
      ),
  )
}

// Test hooks (EVALSTREAM_TEST_HOOKS=1): evict one of the caller's OTLP shards, as the runtime may,
// or ask which tenants' spans it holds.
router.on(['GET', 'POST'], '/__test/otlp-shards/:shard/:hook', async (c) => {
  const hook = c.req.param('hook')
  if (c.env.EVALSTREAM_TEST_HOOKS !== '1' || !c.env.OTLP || (hook !== 'evict' && hook !== 'info')) {
    return problem(c, 'route_not_found', 'Not found', 'no such route')
  }
  const answer = shardStub(c.env.OTLP, tenantOf(c), Number(c.req.param('shard')))
    .fetch(new Request(`https://otlp.internal/__otlp/${hook}`, { method: 'POST' }))
  // Evicted, the object resets inside the request, so the stub's fetch rejects.
  return answer.catch(() => new Response(null, { status: 204 }))
})

// Every spelling of /run_sse an ADK server routes there (agent-sse.ts) reaches the session as /run_sse.
router.post('*', async (c, next) => {
  const url = new URL(c.req.url)
  if (!isRunSsePath(url.pathname)) return next()
  url.pathname = RUN_SSE_PATH
  const limits = c.var.configured.limits
  // The session id may be in the body, so the body is read here, as a stream under the byte limit.
  const read = await readTextLimited(c.req.raw, limits.maxRequestBytes)
  if (!read.ok && read.reason === 'broken') return problem(c, 'broken_body', 'Body could not be read', read.error)
  if (!read.ok) {
    const detail = `the body is more than ${limits.maxRequestBytes} bytes (EVALSTREAM_MAX_REQUEST_BYTES=${limits.maxRequestBytes})`
    return problem(c, 'request_too_large', 'Request body too large', detail, {
      limit: { name: 'EVALSTREAM_MAX_REQUEST_BYTES', value: limits.maxRequestBytes },
    })
  }
  const body = parseObject(read.text)
  const adkId = body ? (body.sessionId ?? body.session_id) : undefined
  const adkScoped = typeof adkId === 'string' && adkId !== '' ? proxySessionId(tenantOf(c), adkId) : undefined
  const id = c.req.header(SESSION_HEADER) ?? adkScoped
  const request = withBody(c.req.raw, read.text, url.href)
  return id ? toObject(c.env, id, request) : c.var.configured.app.fetch(request)
})

// The Eval tab's eval sets of one tenant's app: one EvalSets object holds them (eval-sets-route.ts).
router.all('/dev/apps/*', (c) => {
  const name = c.env.AGENT_URL ? evalSetsObjectName(new URL(c.req.url).pathname, tenantOf(c)) : undefined
  if (!name) return c.var.configured.app.fetch(c.req.raw)
  // The object learns its name from the router alone (it carries over eval sets kept under it).
  const headers = new Headers(c.req.raw.headers)
  headers.set(OBJECT_NAME_HEADER, name)
  return toNamed(c.env, 'EVAL_SETS', name, new Request(c.req.raw, { headers }))
})

router.all('*', (c) => c.var.configured.app.fetch(c.req.raw))

type Configured = {
  ok: true
  /** Session-less routes; the router already answered CORS, so this app adds none. */
  app: { fetch(r: Request): Response | Promise<Response> }
  cors: MiddlewareHandler
  auth: MiddlewareHandler
  /** What a client may send (EVALSTREAM_MAX_*), for the bodies the router itself reads. */
  limits: Limits
  /** How many OTLP and results index objects each tenant's traffic is spread over. */
  shards: WorkerShards
}
let cached: { env: WorkerEnv; value: Configured | { ok: false; error: string } } | undefined

/** Parsed once per env object (once per isolate in practice). */
function configured(env: WorkerEnv): Configured | { ok: false; error: string } {
  if (cached?.env === env) return cached.value
  const setup = depsFromEnv(stringEnv(env), { store: memorySessionStore({ sweeper: 'manual' }) })
  const shards = workerShardsFromEnv(stringEnv(env))
  const value = setup.ok && shards.ok
    ? {
      ok: true as const,
      app: createApp({
        ...setup.deps,
        cors: undefined,
        // Decoded here under the same limits as Node; each trace's spans go on to its shard.
        ...(setup.deps.otlp && env.OTLP ? { otlp: { ...setup.deps.otlp, monitor: shardedOtlpMonitor(env.OTLP, shards.value.otlp) } } : {}),
      }),
      cors: corsFor(setup.deps.cors),
      auth: requireToken(setup.deps.auth),
      limits: setup.deps.limits ?? DEFAULT_LIMITS,
      shards: shards.value,
    }
    : { ok: false as const, error: !setup.ok ? setup.error : !shards.ok ? shards.error : '' }
  cached = { env, value }
  return value
}

export default { fetch: (request: Request, env: WorkerEnv, ctx: unknown) => router.fetch(request, env, ctx as never) }

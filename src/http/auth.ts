/**
 * Bearer-token authentication and tenant isolation. With tokens configured every route but
 * `GET /healthz` and `GET /v1/criteria` (static, the same for everyone) needs
 * `Authorization: Bearer <token>`; the token names the caller's tenant. A session belongs to the
 * tenant that created it (`SessionSpec.tenant`, persisted with the spec), and for anyone else it
 * does not exist: 404, exactly as for an unknown id. Without tokens (open mode) nobody has a
 * tenant and every session is tenant-less.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { Authenticator } from './auth-config.ts'
import type { HostedSession } from '../session/session.ts'
import { problem } from './problem.ts'
import { otlpReservedIdProblem } from '../otlp/session-id.ts'

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by requireToken after a valid token; never from anything the client sends directly. */
    evalstreamTenant: string | undefined
  }
}

/**
 * Routes anyone may call: exact raw paths, GET/HEAD only (a percent-encoded twin still needs a token).
 * `/metrics` checks its own token (EVALSTREAM_METRICS_TOKEN, metrics-route.ts), not a tenant's.
 */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/healthz', '/v1/criteria', '/openapi.json', '/metrics'])

const BEARER = /^Bearer +(\S+) *$/i

/**
 * Answers 401 unless the request carries a configured token; remembers the token's tenant.
 * Without an authenticator (open mode) it lets everything through.
 * @example app.use('*', requireToken(deps.auth))
 */
export function requireToken(auth: Authenticator | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (!auth) return next()
    const method = c.req.method
    // The raw path, not Hono's decoded one: `/%68ealthz` must not slip past as public.
    if ((method === 'GET' || method === 'HEAD') && PUBLIC_PATHS.has(new URL(c.req.url).pathname)) return next()
    const header = c.req.header('authorization')
    if (header === undefined) return unauthorized(c, 'this route needs Authorization: Bearer <token>', '')
    const match = BEARER.exec(header)
    const tenant = match ? await auth.verify(match[1]!) : undefined
    if (tenant === undefined) {
      return unauthorized(c, 'the Authorization header does not hold a valid bearer token', ', error="invalid_token"')
    }
    c.set('evalstreamTenant', tenant)
    return next()
  }
}

function unauthorized(c: Context, detail: string, error: string): Response {
  const response = problem(c, 'unauthorized', 'Unauthorized', detail)
  response.headers.set('www-authenticate', `Bearer realm="evalstream"${error}`)
  return response
}

/**
 * The caller's tenant; undefined in open mode.
 * @example const spec = { session_id, eval_config, ...tenantField(tenantOf(c)) }
 */
export function tenantOf(c: Context): string | undefined {
  return c.get('evalstreamTenant')
}

/** `{ tenant }` when there is one, so open-mode specs stay as they were. */
export function tenantField(tenant: string | undefined): { tenant?: string } {
  return tenant === undefined ? {} : { tenant }
}

/**
 * Whether the caller may see this session: same tenant, or both tenant-less (open mode).
 * @example if (!visibleTo(session, tenantOf(c))) return notFound()
 */
export function visibleTo(session: HostedSession, tenant: string | undefined): boolean {
  return session.spec.tenant === tenant
}

/**
 * The evalstream session a proxied ADK session scores into. With tenants it is `<tenant>:<adk id>`,
 * so two tenants using the same ADK session id never share (or even detect) one session; no other
 * tenant can create an id with that prefix (see reservedIdProblem).
 * @example proxySessionId('acme', 'c0ffee') // 'acme:c0ffee'
 */
export function proxySessionId(tenant: string | undefined, adkSessionId: string): string {
  return tenant === undefined ? adkSessionId : `${tenant}:${adkSessionId}`
}

/**
 * With tenants, an id holding `:` is in the namespace of the tenant before the first `:`; a
 * caller may only create ids in its own. Ids starting with `otlp-` (after any `<tenant>:`) belong
 * to the OTLP monitor, in every mode. Returns the problem's detail, or undefined when allowed.
 * @example reservedIdProblem('globex', 'acme:c0ffee') // "session ids with ':' must start with 'globex:'"
 */
export function reservedIdProblem(tenant: string | undefined, sessionId: string | undefined): string | undefined {
  const monitors = otlpReservedIdProblem(sessionId)
  if (monitors !== undefined) return monitors
  if (tenant === undefined || sessionId === undefined || !sessionId.includes(':')) return undefined
  if (sessionId.startsWith(`${tenant}:`)) return undefined
  return `session ids with ':' are tenant-scoped and must start with '${tenant}:' (the part before ':' names the tenant)`
}

/**
 * Request headers evalstream used itself and must not pass on to the agent in proxy mode: the
 * bearer token is ours, not the agent's.
 * @example forwardHeaders(req.headers, consumedHeaders(c))
 */
export function consumedHeaders(c: Context): string[] {
  return tenantOf(c) === undefined ? [] : ['authorization']
}

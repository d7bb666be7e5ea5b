/**
 * `GET /metrics` (Prometheus text format 0.0.4) and the middleware that counts every request by
 * route pattern and status. Served where the host counts (deps.metrics: Node and Deno); elsewhere
 * (Workers, where each Durable Object would see only itself) it is a 404 problem saying so.
 *
 * Access (docs/metrics.md): with EVALSTREAM_METRICS_TOKEN, only `Authorization: Bearer <it>`;
 * without it, open when the deployment is open, and refused when tenant tokens are configured
 * (metrics add up every tenant's sessions, so no tenant's token opens them).
 */
import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import { createAuthenticator } from './auth-config.ts'
import type { AppDeps } from './deps.ts'
import type { PrometheusMetrics } from '../monitor/prometheus.ts'
import { PROMETHEUS_CONTENT_TYPE } from '../monitor/prometheus-registry.ts'
import { problem } from './problem.ts'

declare module 'hono' {
  interface ContextVariableMap {
    /** The host's counters, for routes that count what they ingest (events-route.ts). */
    evalstreamMetrics: PrometheusMetrics | undefined
  }
}

/** The `route` label of requests no route matched (404s, and ADK routes forwarded in proxy mode). */
export const UNMATCHED_ROUTE = 'unmatched'

const BEARER = /^Bearer +(\S+) *$/i

/**
 * Counts each request once its response is ready; a pass-through without metrics.
 * @example app.use('*', countRequests(deps.metrics))
 */
export function countRequests(metrics: PrometheusMetrics | undefined): MiddlewareHandler {
  if (!metrics) return (_c, next) => next()
  return async (c, next) => {
    c.set('evalstreamMetrics', metrics)
    const started = Date.now()
    try {
      await next()
    } finally {
      metrics.http(c.req.method, routeOf(c), c.res.status, (Date.now() - started) / 1000)
    }
  }
}

/** The matched route's pattern, even when a middleware (auth) answered before its handler ran. */
function routeOf(c: Context): string {
  const routes = matchedRoutes(c).filter((r) => !(r.method === 'ALL' && r.path === '/*'))
  return routes.at(-1)?.path ?? UNMATCHED_ROUTE
}

/**
 * @example app.get('/metrics', (c) => metricsRoute(c, deps))
 */
export async function metricsRoute(c: Context, deps: AppDeps): Promise<Response> {
  const metrics = deps.metrics
  if (!metrics) {
    return problem(
      c,
      'not_configured',
      'Not found',
      'this runtime serves no /metrics (Workers: every Durable Object counts only itself); see docs/metrics.md',
    )
  }
  const refused = await refusal(c, metrics, deps.auth !== undefined)
  if (refused) return refused
  return new Response(metrics.render(), { status: 200, headers: { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' } })
}

const checkers = new WeakMap<PrometheusMetrics, ReturnType<typeof createAuthenticator>>()

async function refusal(c: Context, metrics: PrometheusMetrics, tenants: boolean): Promise<Response | undefined> {
  if (metrics.token === undefined) {
    if (!tenants) return undefined
    return problem(
      c,
      'metrics_not_enabled',
      'Metrics not enabled',
      'tenant tokens do not open /metrics (it adds up every tenant); set EVALSTREAM_METRICS_TOKEN',
    )
  }
  let checker = checkers.get(metrics)
  if (!checker) checkers.set(metrics, checker = createAuthenticator([{ tenant: 'metrics', token: metrics.token }]))
  const match = BEARER.exec(c.req.header('authorization') ?? '')
  if (match && (await checker.verify(match[1]!)) !== undefined) return undefined
  const response = problem(c, 'unauthorized', 'Unauthorized', '/metrics needs Authorization: Bearer <EVALSTREAM_METRICS_TOKEN>')
  response.headers.set('www-authenticate', 'Bearer realm="evalstream-metrics"')
  return response
}

/**
 * The evalstream HTTP API as a Hono app. The same app runs on Node, Deno and inside the Durable
 * Object on Workers; each adapter passes in its store, engine factory and configuration.
 */
import { Hono } from 'hono'
import { criteriaCatalogue } from '../core/registry.ts'
import type { AppDeps } from './deps.ts'
import { requireToken } from './auth.ts'
import { conversation } from './conversation-route.ts'
import { corsFor } from './cors.ts'
import { devEvalDocs } from './dev-eval/openapi.ts'
import { devEvalRoutes } from './dev-eval/routes.ts'
import { dashboardRoutes } from './dashboard/routes.ts'
import { countRequests, metricsRoute } from './metrics-route.ts'
import { openApiRoute } from './openapi/route.ts'
import { OTLP_DOCS, otlpMetricsDropped, otlpRoute } from './otlp-routes.ts'
import { forwardAll, proxyRunSse } from './proxy/proxy.ts'
import { isRunSsePath } from './proxy/agent-sse.ts'
import { noSniff } from './no-sniff.ts'
import { problem } from './problem.ts'
import { RESULTS_DOCS } from './results-docs.ts'
import { resultsRoutes } from './results-routes.ts'
import { storeGoneCheck } from './gone-check.ts'
import { runsRoutes } from './runs-routes.ts'
import { sessionsRoutes } from './sessions-routes.ts'

export type { AppDeps } from './deps.ts'

/** Methods that write nothing (a results stream's resume reads only). */
const READ_ONLY_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * @example
 * const app = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o) })
 * serve({ fetch: app.fetch, port: 8787 })
 */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono()
  app.use('*', noSniff)
  // Acknowledged means committed: a request that may write waits for the commit of its writes.
  const durable = deps.writesDurable
  if (durable) {
    app.use('*', async (c, next) => {
      await next()
      if (!READ_ONLY_METHODS.has(c.req.method)) await durable()
    })
  }
  // Counting first, so answers of CORS and auth (401) are counted too.
  app.use('*', countRequests(deps.metrics))
  // CORS next: preflights carry no token, and 401s need the allow headers to be readable.
  app.use('*', corsFor(deps.cors))
  // The dashboard page is public (a browser sends no token when navigating); its data is not.
  app.route('/', dashboardRoutes())
  app.use('*', requireToken(deps.auth))
  app.get('/healthz', (c) => c.json({ ok: true }))
  app.get('/v1/criteria', (c) => c.json({ criteria: criteriaCatalogue() }))
  app.get('/openapi.json', openApiRoute(deps, [...devEvalDocs, ...RESULTS_DOCS, ...(deps.otlp ? OTLP_DOCS : [])]))
  app.get('/metrics', (c) => metricsRoute(c, deps))
  if (deps.otlp) {
    const host = {
      ...(deps.admission ? { admission: deps.admission } : {}),
      ...(deps.store.bytes ? { budget: deps.store.bytes } : {}),
      ...(deps.otlpDeadline ? { deadline: deps.otlpDeadline } : {}),
      ...(deps.metrics ? { refused: deps.metrics.otlp.refused } : {}),
      ...(deps.turns ? { turns: deps.turns } : {}),
    }
    app.post('/v1/traces', otlpRoute('traces', deps.otlp, host))
    app.post('/v1/logs', otlpRoute('logs', deps.otlp, host))
    // An SDK pointed at OTEL_EXPORTER_OTLP_ENDPOINT also sends metrics: taken and dropped (nothing
    // here reads them), so the agent's exporter does not log a failure every interval.
    app.post('/v1/metrics', otlpMetricsDropped)
  }
  app.route('/v1', resultsRoutes(deps.resultsIndex, undefined, storeGoneCheck(deps)))
  app.get('/v1/sessions/:id/conversation', (c) => conversation(c, deps))
  app.route('/v1/sessions', sessionsRoutes(deps))
  app.route('/v1/runs', runsRoutes(deps))
  app.post('/run_sse', (c) => proxyRunSse(c, deps))
  app.route('/dev/apps', devEvalRoutes(deps))

  app.notFound((c) => {
    const path = new URL(c.req.url).pathname
    // Another spelling of /run_sse (trailing slash, case, `;x`, `//`, %5F) is scored like it, never relayed unscored.
    if (c.req.method === 'POST' && isRunSsePath(path)) return proxyRunSse(c, deps)
    // Our own namespace never goes to the agent; everything else is an ADK route in proxy mode.
    if (deps.agentUrl && !path.startsWith('/v1/') && path !== '/healthz') return forwardAll(c, deps)
    return problem(c, 'route_not_found', 'Not found', `no route ${c.req.method} ${path}`)
  })
  // The one place unexpected errors become responses: the server keeps running, the client learns why.
  app.onError((error, c) => {
    if (isClientError(error)) return problem(c, 'bad_request', 'Bad request', error.message)
    return problem(c, 'internal', 'Internal error', `internal error: ${error.message}`)
  })
  return app
}

/** An error thrown with a 4xx status of its own (a Hono HTTPException): the client's fault, answered 400. */
function isClientError(error: Error): boolean {
  const status = (error as { status?: unknown }).status
  return typeof status === 'number' && status >= 400 && status < 500
}

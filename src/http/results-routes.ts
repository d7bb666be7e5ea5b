/**
 * Monitoring across sessions, from the results index (src/monitor/results-index.ts):
 *
 *   GET /v1/results   decided results, newest first, filtered and paged (`next_cursor`)
 *   GET /v1/stats     per criterion: pass rate, counts by status, score buckets, time buckets
 *   GET /v1/sessions  open and recent sessions with their criteria's pass/fail counts
 *
 * A caller sees its own tenant's results only (tenant-less ones in open mode); `?tenant=` naming
 * another tenant is refused, never silently widened. Without an index (a host built without one)
 * the routes answer 404 saying so.
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import type { ResultsIndex } from '../monitor/results-index.ts'
import { tenantOf } from './auth.ts'
import { problem } from './problem.ts'
import { type Parsed, resultsQuery, sessionsQuery, statsQuery } from './results-query.ts'

/**
 * Why a listed session is no longer held by the session store (`reason`: deleted, idle, capacity,
 * retention, memory, or unknown once the eviction notice itself has aged out), or undefined while
 * it is held. The index keeps a session's results after it goes; this tells the list.
 */
export type GoneCheck = (sessionId: string) => Promise<{ reason: string; detail: string } | undefined>

/**
 * Mounted at `/v1`. `now` (default: the index's clock, which also stamps and ages its rows) ends
 * the default /v1/stats window. `gone` (a host whose session store is in reach: Node, Deno) marks
 * listed sessions the store no longer holds.
 * @example app.route('/v1', resultsRoutes(deps.resultsIndex))
 */
export function resultsRoutes(
  index: ResultsIndex | undefined,
  now: () => number = index?.now ?? Date.now,
  gone?: GoneCheck,
): Hono {
  const app = new Hono()
  const serve = <T>(c: Context, parse: (c: Context, tenant: string) => Parsed<T>, read: (index: ResultsIndex, q: T) => unknown) => {
    // 404, not 5xx: nothing is broken, this host was built without an index.
    if (!index) {
      return problem(
        c,
        'not_configured',
        'No results index',
        'this host keeps no results index, so there is nothing to list (monitoring across sessions is off)',
      )
    }
    const own = tenantOf(c)
    const asked = c.req.query('tenant')
    if (asked !== undefined && asked !== '' && asked !== own) {
      const who = own === undefined ? 'this host has no tenants (no EVALSTREAM_TOKENS)' : `your token is tenant '${own}'`
      return problem(c, 'other_tenant', 'Other tenant', `a tenant sees only its own results: ${who}, not '${asked}'`)
    }
    const q = parse(c, own ?? '')
    if (!q.ok) return problem(c, q.problem)
    return c.json({ ...(own !== undefined ? { tenant: own } : {}), ...(read(index, q.value) as object) })
  }
  app.get('/results', (c) => serve(c, resultsQuery, (i, q) => i.results(q)))
  app.get('/stats', (c) =>
    serve(
      c,
      (c, tenant) => statsQuery(c, tenant, now()),
      (i, q) => ({
        since: new Date(q.since).toISOString(),
        until: new Date(q.until).toISOString(),
        bucket_ms: q.bucketMs,
        limits: i.limits,
        ...i.stats(q),
      }),
    ))
  app.get('/sessions', async (c) => {
    const listed = serve(c, sessionsQuery, (i, q) => i.sessions(q))
    if (!gone || listed.status !== 200) return listed
    const body = (await listed.json()) as { sessions: Array<Record<string, unknown>> }
    for (const s of body.sessions) {
      const why = await gone(String(s.session_id))
      if (why) s.gone = why
    }
    return c.json(body)
  })
  return app
}

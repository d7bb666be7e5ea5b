/**
 * The results index on Workers: one Durable Object per tenant (`INDEX.idFromName('index:<tenant>')`,
 * `index:` alone in open mode) holding that tenant's results index in its SQLite storage, the same
 * code as Node and Deno (src/monitor/results-index.ts). Session objects send it their new results
 * (index-feed.ts) at POST /__index/record, a path the router never forwards, so only objects of
 * this Worker can write. Reads (GET /v1/results, /v1/stats, /v1/sessions) come through the router,
 * which picked this object from the caller's token; the object checks the token again itself.
 */
import { Hono } from 'hono'
import { requireToken } from '../src/http/auth.ts'
import { problem } from '../src/http/problem.ts'
import { resultsRoutes } from '../src/http/results-routes.ts'
import { accessFromEnv } from '../src/config/access.ts'
import type { FedResult } from '../src/session/result-feed.ts'
import { type ResultsIndex, sqliteResultsIndex } from '../src/monitor/results-index.ts'
import { indexLimitsFromEnv } from '../src/config/results-index.ts'
import { sqlFromDurable } from '../src/session/sql.ts'
import { isRecord } from '../src/adk/json.ts'
import { ResultEvent } from '../src/engine/result-events.ts'
import { type DurableObjectState, stringEnv, type WorkerEnv } from './types.ts'

export const RECORD_PATH = '/__index/record'
/** A record batch holds at most this many results (the sender splits larger ones). */
export const MAX_RECORD_BATCH = 500

export class EvalIndex {
  app: Hono
  index: ResultsIndex | undefined

  constructor(state: DurableObjectState, env: WorkerEnv) {
    const vars = stringEnv(env)
    const access = accessFromEnv(vars)
    const limits = indexLimitsFromEnv(vars)
    this.app = new Hono()
    if (!access.ok || !limits.ok) {
      const error = !access.ok ? access.error : !limits.ok ? limits.error : ''
      this.app.all('*', (c) => problem(c, 'misconfigured', 'Misconfigured deployment', error))
      return
    }
    const index = (this.index = sqliteResultsIndex(sqlFromDurable(state.storage.sql), { limits: limits.value }))
    this.app.post(RECORD_PATH, async (c) => {
      const batch: unknown = await c.req.json().catch(() => undefined)
      if (!Array.isArray(batch) || batch.length > MAX_RECORD_BATCH) {
        return problem(c, 'invalid_request', 'Bad batch', `expected an array of at most ${MAX_RECORD_BATCH} results`)
      }
      return c.json({ recorded: index.recordAll(batch.filter(isFedResult)) })
    })
    this.app.use('*', requireToken(access.value.auth))
    this.app.route('/v1', resultsRoutes(index))
  }

  fetch(request: Request): Response | Promise<Response> {
    return this.app.fetch(request)
  }
}

/** A result sent over the wire by a session object: checked against the result protocol before the index trusts it. */
function isFedResult(v: unknown): v is FedResult {
  if (!isRecord(v) || typeof v.sessionId !== 'string' || typeof v.atMs !== 'number') return false
  return ResultEvent.safeParse(v.event).success
}

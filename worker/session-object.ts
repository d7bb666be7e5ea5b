/**
 * The Durable Object that hosts one evalstream session: the same Hono app as Node and Deno, over
 * a store kept in this object's SQLite storage (durable-store.ts), with an alarm that frees the
 * storage once the session's idle TTL or retention is over.
 */
import { createApp } from '../src/http/app.ts'
import type { Exporters } from '../src/export/exporters.ts'
import { depsFromEnv } from '../src/config/setup.ts'
import { sqliteEvalSetStore } from '../src/session/sqlite-eval-set-store.ts'
import { sqlFromDurable } from '../src/session/sql.ts'
import { type DurableSessions, durableSessions } from './durable-store.ts'
import { forwardResults } from './index-feed.ts'
import { durableJudgeCache } from './judge-cache.ts'
import { type DurableObjectState, stringEnv, type WorkerEnv } from './types.ts'
import type { AppDeps } from '../src/http/deps.ts'
import { DEFAULT_LIMITS } from '../src/ingest/limits.ts'
import { nextOtlpAlarm, objectDelivery, OTLP_INTERNAL_PATH, receiveInternal } from './otlp-object.ts'

/**
 * EVALSTREAM_MAX_PROCESS_BYTES by default in a Durable Object: a quarter of the 128 MB an isolate
 * may use (it holds one session, and may share the isolate with other objects).
 */
export const WORKER_PROCESS_BYTES = 32 * 1024 * 1024

export const EVICT_PATH = /^\/v1\/sessions\/[^/]+\/__evict$/
export const STORAGE_PATH = /^\/v1\/sessions\/[^/]+\/__storage$/

export class EvalSession {
  state: DurableObjectState
  app: { fetch(request: Request): Response | Promise<Response> }
  sessions: DurableSessions | undefined
  hooks: boolean
  exporters: Exporters | undefined
  indexing: { idle(): Promise<void> } | undefined
  deps: AppDeps | undefined

  constructor(state: DurableObjectState, env: WorkerEnv) {
    this.state = state
    this.hooks = env.EVALSTREAM_TEST_HOOKS === '1'
    const judgeCache = durableJudgeCache(state.storage.sql)
    const setup = depsFromEnv(stringEnv(env), {
      store: (limits, feed) => (this.sessions = durableSessions(state.storage, limits, judgeCache, feed)).store,
      judgeCache,
      defaultProcessBytes: WORKER_PROCESS_BYTES,
      workersAi: env.AI,
      // Used only by the object named evalsets/<tenant>/<app> (eval-sets-route.ts); no tables until a write.
      evalSets: sqliteEvalSetStore(sqlFromDurable(state.storage.sql)),
      // Only the objects named otlp/<tenant> receive spans; they send each trace to its session's object.
      otlpDelivery: objectDelivery(env),
      // Its conversations' idle times survive the object's eviction (no table until the first trace).
      otlpSql: sqlFromDurable(state.storage.sql),
    })
    this.deps = setup.ok ? setup.deps : undefined
    this.exporters = setup.ok ? setup.deps.exporters : undefined
    // New results go on to the tenant's index object (GET /v1/results, /v1/stats, /v1/sessions).
    if (setup.ok && setup.deps.feed && env.INDEX) this.indexing = forwardResults(setup.deps.feed, env.INDEX)
    // The router (index.ts) answers CORS; the object checks the bearer token again itself.
    this.app = setup.ok ? createApp({ ...setup.deps, cors: undefined }) : { fetch: () => misconfigured(setup.error) }
  }

  async fetch(request: Request): Promise<Response> {
    if (this.hooks) {
      const hooked = this.testHook(request)
      if (hooked) return hooked
    }
    const deps = this.deps
    const internal = request.method === 'POST' && deps && OTLP_INTERNAL_PATH.test(new URL(request.url).pathname)
    const response = internal
      ? await receiveInternal(request, deps.store, deps.createEngine, deps.limits ?? DEFAULT_LIMITS)
      : await this.app.fetch(request)
    await this.sessions?.settle()
    await this.scheduleOtlp()
    // OpenTelemetry exports and webhooks this request queued finish after the response is sent.
    if (this.exporters) this.state.waitUntil?.(this.exporters.idle())
    if (this.indexing) this.state.waitUntil?.(this.indexing.idle())
    return response
  }

  async alarm(): Promise<void> {
    await this.sessions?.alarm()
    if (this.deps?.otlp) {
      await this.deps.otlp.monitor.tick()
      await this.scheduleOtlp()
    }
    await this.exporters?.idle()
  }

  /** The assembler's object (otlp/<tenant>) wakes for the trace grace and the conversations' idle time. */
  async scheduleOtlp(): Promise<void> {
    const otlp = this.deps?.otlp
    if (!otlp?.assembler || otlp.conversationIdleMs === undefined) return
    const next = nextOtlpAlarm(
      Date.now(),
      otlp.monitor.openTraces(),
      otlp.monitor.activeConversations(),
      otlp.assembler,
      otlp.conversationIdleMs,
    )
    if (next !== undefined) await this.state.storage.setAlarm(next)
  }

  /** Test-only routes (EVALSTREAM_TEST_HOOKS=1): simulate an eviction, list what storage holds. */
  testHook(request: Request): Response | undefined {
    const path = new URL(request.url).pathname
    if (request.method === 'POST' && EVICT_PATH.test(path)) {
      // Everything in memory goes, SQLite stays.
      this.state.abort('evicted by test hook')
      return new Response(null, { status: 204 })
    }
    if (request.method === 'GET' && STORAGE_PATH.test(path)) {
      const tables = this.state.storage.sql
        .exec(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
        )
        .toArray()
        .map((r) => String(r.name))
      const rows = Object.fromEntries(
        tables.map((t) => [t, Number(this.state.storage.sql.exec(`SELECT COUNT(*) AS n FROM "${t}"`).toArray()[0]?.n ?? 0)]),
      )
      return Response.json({ tables, rows })
    }
    return undefined
  }
}

function misconfigured(error: string): Response {
  const body = { type: 'https://evalstream.dev/problems/internal', title: 'Misconfigured deployment', status: 500, detail: error }
  return new Response(JSON.stringify(body), { status: 500, headers: { 'content-type': 'application/problem+json' } })
}

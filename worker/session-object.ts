/**
 * The Durable Object that hosts one evalstream session: the same Hono app as Node and Deno, over
 * a store kept in this object's SQLite storage (durable-store.ts), with an alarm that frees the
 * storage once the session's idle TTL or retention is over. A session born from OTLP traces takes
 * them from the OTLP shards (otlp-shard.ts) and ends itself once its conversation is idle
 * (conversation-idle.ts), on the same alarm. Eval set runs and the Eval tab's eval sets have
 * objects of their own (run-object.ts, eval-sets-object.ts); a deployment without their bindings
 * (RUNS, EVAL_SETS) sends them here, as before those classes existed.
 */
import { createApp } from '../src/http/app.ts'
import type { Exporters } from '../src/export/exporters.ts'
import { depsFromEnv } from '../src/config/setup.ts'
import { type DurableSessions, durableSessions } from './durable-store.ts'
import { forwardResults } from './index-feed.ts'
import { durableJudgeCache } from './judge-cache.ts'
import { type DurableObjectState, stringEnv, type WorkerEnv } from './types.ts'
import type { AppDeps } from '../src/http/deps.ts'
import { DEFAULT_LIMITS } from '../src/ingest/limits.ts'
import { OTLP_INTERNAL_PATH, receiveInternal } from './otlp-shard.ts'
import { type ConversationIdle, conversationIdle } from './conversation-idle.ts'
import { storeDelivery } from '../src/otlp-monitor/monitor.ts'
import { workerShardsFromEnv } from '../src/config/worker-shards.ts'
import { problemOf } from '../src/engine/problem.ts'
import { problemResponse } from '../src/http/problem.ts'
import { sqliteEvalSetStore } from '../src/http/dev-eval/sqlite-eval-set-store.ts'
import { sqlFromDurable } from '../src/session/sql.ts'
import { exportEvalTables, LEGACY_EXPORT_PATH } from './legacy-eval-sets.ts'

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
  conversation: ConversationIdle | undefined

  constructor(state: DurableObjectState, env: WorkerEnv) {
    this.state = state
    this.hooks = env.EVALSTREAM_TEST_HOOKS === '1'
    const judgeCache = durableJudgeCache(state.storage.sql)
    const setup = depsFromEnv(stringEnv(env), {
      store: (limits, feed) => {
        // The conversation's idle end shares the alarm (made below, once the settings are read).
        const also = { due: () => this.conversation?.due(), forget: () => this.conversation?.forget() }
        this.sessions = durableSessions(state.storage, limits, { judgeCache, feed, also })
        return this.sessions.store
      },
      judgeCache,
      defaultProcessBytes: WORKER_PROCESS_BYTES,
      // Only where the deployment has no EVAL_SETS binding (the router sends an app's eval sets
      // here then, as before that class existed); no tables until a write.
      evalSets: sqliteEvalSetStore(sqlFromDurable(state.storage.sql)),
      workersAi: env.AI,
      // Spans go to the OTLP shards, never here; this object's conversation ends itself (below).
      otlpEndsConversations: false,
    })
    this.deps = setup.ok ? setup.deps : undefined
    // No table until the conversation's first trace.
    const idleMs = setup.ok ? setup.deps.otlp?.conversationIdleMs : undefined
    if (idleMs !== undefined) this.conversation = conversationIdle(state.storage.sql, idleMs)
    this.exporters = setup.ok ? setup.deps.exporters : undefined
    const shards = workerShardsFromEnv(stringEnv(env))
    // New results go on to the session's index shard (GET /v1/results, /v1/stats, /v1/sessions).
    if (setup.ok && shards.ok && setup.deps.feed && env.INDEX) {
      this.indexing = forwardResults(setup.deps.feed, env.INDEX, shards.value.index)
    }
    // The router (index.ts) answers CORS; the object checks the bearer token again itself.
    const error = !setup.ok ? setup.error : !shards.ok ? shards.error : undefined
    this.app = setup.ok && error === undefined ? createApp({ ...setup.deps, cors: undefined }) : { fetch: () => misconfigured(error ?? '') }
  }

  async fetch(request: Request): Promise<Response> {
    if (this.hooks) {
      const hooked = this.testHook(request)
      if (hooked) return hooked
    }
    const deps = this.deps
    const path = new URL(request.url).pathname
    // An app's eval sets from before EvalSets, asked for by its object (eval-sets-object.ts).
    if (request.method === 'POST' && path === LEGACY_EXPORT_PATH) return Response.json(exportEvalTables(this.state.storage.sql))
    const internal = request.method === 'POST' && deps && OTLP_INTERNAL_PATH.test(path)
    const response = internal
      ? await receiveInternal(
        request,
        deps.store,
        deps.createEngine,
        deps.limits ?? DEFAULT_LIMITS,
        (id) => this.conversation?.taken(id, Date.now()),
      )
      : await this.app.fetch(request)
    await this.sessions?.settle()
    // OpenTelemetry exports and webhooks this request queued finish after the response is sent.
    if (this.exporters) this.state.waitUntil?.(this.exporters.idle())
    if (this.indexing) this.state.waitUntil?.(this.indexing.idle())
    return response
  }

  async alarm(): Promise<void> {
    const deps = this.deps
    if (deps) {
      // A conversation idle this long is over: its session ends (the case result), as on Node.
      const local = storeDelivery(deps.store, deps.createEngine, deps.limits ?? DEFAULT_LIMITS)
      await this.conversation?.endIdle(Date.now(), (id) => local.end(id))
    }
    await this.sessions?.alarm()
    await this.exporters?.idle()
    if (this.indexing) await this.indexing.idle()
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

/** What an object whose deployment's variables do not parse answers to everything (fail closed). */
export function misconfigured(error: string): Response {
  return problemResponse(problemOf('misconfigured', 'Misconfigured deployment', error))
}

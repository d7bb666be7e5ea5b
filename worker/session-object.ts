/**
 * The Durable Object that hosts one evalstream session: the same Hono app as Node and Deno, over
 * a store kept in this object's SQLite storage (durable-store.ts).
 */
import { createApp } from '../src/http/app.ts'
import { depsFromEnv } from '../src/host/setup.ts'
import { durableSessionStore } from './durable-store.ts'
import { sqliteJudgeCache } from './judge-cache.ts'
import { stringEnv, type DurableObjectState, type WorkerEnv } from './types.ts'

export const EVICT_PATH = /^\/v1\/sessions\/[^/]+\/__evict$/

export class EvalSession {
  state: DurableObjectState
  app: { fetch(request: Request): Response | Promise<Response> }
  hooks: boolean

  constructor(state: DurableObjectState, env: WorkerEnv) {
    this.state = state
    this.hooks = env.EVALSTREAM_TEST_HOOKS === '1'
    const setup = depsFromEnv(stringEnv(env), {
      store: durableSessionStore(state.storage.sql),
      judgeCache: sqliteJudgeCache(state.storage.sql),
    })
    // The router (index.ts) answers CORS; the object checks the bearer token again itself.
    this.app = setup.ok ? createApp({ ...setup.deps, cors: undefined }) : { fetch: () => misconfigured(setup.error) }
  }

  fetch(request: Request): Response | Promise<Response> {
    if (this.hooks && request.method === 'POST' && EVICT_PATH.test(new URL(request.url).pathname)) {
      // Tests simulate an eviction: everything in memory goes, SQLite stays.
      this.state.abort('evicted by test hook')
      return new Response(null, { status: 204 })
    }
    return this.app.fetch(request)
  }
}

function misconfigured(error: string): Response {
  const body = { type: 'https://evalstream.dev/problems/internal', title: 'Misconfigured deployment', status: 500, detail: error }
  return new Response(JSON.stringify(body), { status: 500, headers: { 'content-type': 'application/problem+json' } })
}

/**
 * The few Workers runtime types evalstream touches, written out so the worker compiles without
 * pulling @cloudflare/workers-types into the shared tsconfig (which would clash with Node's types).
 */

export type SqlCursor = { toArray(): Record<string, unknown>[] }
export type SqlStorage = { exec(query: string, ...bindings: unknown[]): SqlCursor }

export type DurableObjectStorage = {
  sql: SqlStorage
  /** One alarm per object: setting it replaces the previous one. */
  setAlarm(scheduledTimeMs: number): Promise<void>
  getAlarm(): Promise<number | null>
  deleteAlarm(): Promise<void>
  /** Deletes every key, table and the alarm: the object then holds no storage. */
  deleteAll(): Promise<void>
}

export type DurableObjectState = {
  storage: DurableObjectStorage
  /** Resets the object as if evicted; used by the test hook. */
  abort(reason?: string): void
  /** Keeps the object alive until the promise settles (result exports after the response). */
  waitUntil?(promise: Promise<unknown>): void
}

export type DurableObjectStub = { fetch(request: Request): Promise<Response> }
export type DurableObjectNamespace = { idFromName(name: string): unknown; get(id: unknown): DurableObjectStub }

export type WorkerEnv = {
  SESSIONS: DurableObjectNamespace
  /** The results index shards (index-object.ts, index-shards.ts); without it the monitoring routes answer 404. */
  INDEX?: DurableObjectNamespace
  /** Eval set runs, an object each (run-object.ts); without it they live in SESSIONS objects. */
  RUNS?: DurableObjectNamespace
  /** The Eval tab's eval sets, an object per tenant's app (eval-sets-object.ts); without it they live in SESSIONS objects. */
  EVAL_SETS?: DurableObjectNamespace
  /** The OTLP shards (otlp-shard.ts); without it /v1/traces and /v1/logs answer 404. */
  OTLP?: DurableObjectNamespace
  /** The Workers AI binding ([ai] in wrangler.toml): judge_model `workers-ai/@cf/...` runs on it, with no key. */
  AI?: { run(model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown> }
  EVALSTREAM_CONFIG?: string
  AGENT_URL?: string
  /** Secret `tenant:token,tenant:token` (docs/auth.md); unset means open. */
  EVALSTREAM_TOKENS?: string
  /** Browser origins allowed by CORS, comma-separated, or `*`. */
  EVALSTREAM_CORS_ORIGINS?: string
  /** '1' enables POST /v1/sessions/{id}/__evict (tests only: resets the Durable Object). */
  EVALSTREAM_TEST_HOOKS?: string
  [name: string]: unknown
}

/** String bindings only: the shape depsFromEnv reads. */
export function stringEnv(env: WorkerEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v
  return out
}

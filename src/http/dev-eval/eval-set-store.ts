/**
 * Where the ADK web UI's eval sets and eval results live (proxy mode's `/dev/apps/{app}/...`
 * routes, src/http/dev-eval): beside the sessions, in memory or in SQLite (node:sqlite with
 * EVALSTREAM_DB, a Durable Object's storage on Workers). Everything is scoped by tenant and app,
 * so one tenant never sees, lists or overwrites another's.
 *
 * It sits in src/session, not in a folder of its own, because it is session persistence in all but
 * name: the same `Sql` port, database and Durable Object storage as the session records, and its
 * eval cases are what the Eval tab turns into sessions.
 *
 * Values are stored as ADK writes its files: an eval set as `*.evalset.json` text (snake_case),
 * a result as `*.evalset_result.json` text. The contract is synchronous: both backends are, so a
 * read-modify-write of one eval set (adding a case) cannot interleave with another request.
 */

/** Eval sets kept per tenant and app; creating one more is refused (409). */
export const MAX_EVAL_SETS_PER_APP = 1_000
/** Eval results kept per tenant and app; the oldest is dropped when a run adds one more. */
export const MAX_EVAL_RESULTS_PER_APP = 200

/** Whose eval sets: the caller's tenant (undefined in open mode) and the agent app. */
export type EvalScope = { tenant?: string; app: string }

/** One stored run result: ADK's EvalSetResult file text under its `eval_set_result_id`. */
export type StoredResult = { id: string; evalSetId: string; json: string; createdMs: number }

export type CreateSetOutcome = 'created' | 'exists' | 'full'

export interface EvalSetStore {
  /** Eval set ids, sorted. */
  listSets(scope: EvalScope): string[]
  /** The eval set's file text, or undefined. */
  getSet(scope: EvalScope, id: string): string | undefined
  /** Adds a new eval set; never replaces one. */
  createSet(scope: EvalScope, id: string, json: string, nowMs: number): CreateSetOutcome
  /** Replaces an existing eval set; false when there is none. */
  replaceSet(scope: EvalScope, id: string, json: string, nowMs: number): boolean
  deleteSet(scope: EvalScope, id: string): boolean
  /** Result ids, oldest first. */
  listResults(scope: EvalScope): string[]
  getResult(scope: EvalScope, id: string): string | undefined
  /** Keeps the result, then drops the oldest beyond MAX_EVAL_RESULTS_PER_APP. */
  addResult(scope: EvalScope, result: StoredResult): void
}

export type EvalStoreLimits = { maxSets: number; maxResults: number }

export const DEFAULT_EVAL_STORE_LIMITS: EvalStoreLimits = { maxSets: MAX_EVAL_SETS_PER_APP, maxResults: MAX_EVAL_RESULTS_PER_APP }

type Bucket = { sets: Map<string, string>; results: Map<string, StoredResult> }

/**
 * The store in process memory (lost on restart), used when EVALSTREAM_DB is `:memory:` or absent.
 * @example
 * const store = memoryEvalSetStore()
 * store.createSet({ app: 'weather_agent' }, 'smoke', '{"eval_set_id":"smoke","eval_cases":[]}', Date.now())
 */
export function memoryEvalSetStore(limits: EvalStoreLimits = DEFAULT_EVAL_STORE_LIMITS): EvalSetStore {
  const buckets = new Map<string, Bucket>()
  const bucket = (scope: EvalScope, create: boolean): Bucket | undefined => {
    const key = scopeKey(scope)
    let found = buckets.get(key)
    if (!found && create) buckets.set(key, found = { sets: new Map(), results: new Map() })
    return found
  }
  return {
    listSets: (scope) => [...(bucket(scope, false)?.sets.keys() ?? [])].sort(),
    getSet: (scope, id) => bucket(scope, false)?.sets.get(id),
    createSet(scope, id, json) {
      const b = bucket(scope, true)!
      if (b.sets.has(id)) return 'exists'
      if (b.sets.size >= limits.maxSets) return 'full'
      b.sets.set(id, json)
      return 'created'
    },
    replaceSet(scope, id, json) {
      const b = bucket(scope, false)
      if (!b?.sets.has(id)) return false
      b.sets.set(id, json)
      return true
    },
    deleteSet: (scope, id) => bucket(scope, false)?.sets.delete(id) ?? false,
    listResults: (scope) => [...(bucket(scope, false)?.results.keys() ?? [])],
    getResult: (scope, id) => bucket(scope, false)?.results.get(id)?.json,
    addResult(scope, result) {
      const results = bucket(scope, true)!.results
      results.delete(result.id)
      results.set(result.id, result)
      // Map order is insertion order: the first keys are the oldest results.
      for (const id of results.keys()) {
        if (results.size <= limits.maxResults) break
        results.delete(id)
      }
    },
  }
}

/** Tenant and app as one key; NUL cannot occur in either (tenant names and app names are checked). */
export function scopeKey(scope: EvalScope): string {
  return `${scope.tenant ?? ''}\u0000${scope.app}`
}

/**
 * The runs a host keeps (`POST /v1/runs`), beside its session store. Runs are keyed by tenant and
 * id: each tenant has its own run ids, so another tenant's id is neither a 404 nor a 409 hint, just
 * free (no way to learn which ids another tenant used). At most `activeRuns` in progress per
 * process and `activeRunsPerTenant` per tenant (run-quotas.ts), MAX_KEPT_RUNS kept, the oldest
 * finished one forgotten first. In memory: a run is an open task of this process (on Workers, of
 * its own Durable Object).
 */
import { type Failure, failure } from '../engine/problem.ts'
import type { HostedRun } from './hosted-run.ts'
import { DEFAULT_RUN_QUOTAS, RUN_QUOTA_VARS, type RunQuotas, runRefusal } from './run-quotas.ts'

/** Runs in progress at once per process (or Durable Object) by default (EVALSTREAM_MAX_ACTIVE_RUNS); more get 429. */
export const MAX_ACTIVE_RUNS = DEFAULT_RUN_QUOTAS.activeRuns
/** Finished runs kept for their results; the oldest finished one goes first. */
export const MAX_KEPT_RUNS = 100

export interface RunStore {
  /** Why a run of this tenant with this id (or any run) cannot start now: too many in progress (429), or it exists (409). */
  refusal(id: string | undefined, tenant: string | undefined): Failure | undefined
  /** Keeps a started run, forgetting the oldest finished one when full. */
  add(run: HostedRun, tenant: string | undefined): void
  /** The run, if this tenant started it. */
  get(id: string, tenant: string | undefined): HostedRun | undefined
  /** This tenant's runs, newest first (at most MAX_KEPT_RUNS are kept). */
  list(tenant: string | undefined): HostedRun[]
}

/**
 * @example
 * const runs = memoryRunStore(quotas)
 * const refused = runs.refusal(id, tenant); if (refused) return problem(c, refused.problem)
 */
export function memoryRunStore(quotas: RunQuotas = DEFAULT_RUN_QUOTAS): RunStore {
  const runs = new Map<string, { run: HostedRun; tenant: string | undefined }>()
  const keyOf = (tenant: string | undefined, id: string) => `${tenant ?? ''}\u0000${id}`
  return {
    refusal(id, tenant) {
      const active = { total: 0, ofTenant: 0 }
      for (const r of runs.values()) if (!r.run.finished()) (active.total += 1), r.tenant === tenant && (active.ofTenant += 1)
      const busy = runRefusal(active, tenant, { process: quotas.activeRuns, perTenant: quotas.activeRunsPerTenant }, 'runs', {
        process: RUN_QUOTA_VARS.activeRuns,
        perTenant: RUN_QUOTA_VARS.activeRunsPerTenant,
      })
      if (busy) return failure('too_many_runs', 'Too many runs', busy)
      if (id !== undefined && runs.has(keyOf(tenant, id))) return failure('run_exists', 'Run exists', `a run with id '${id}' exists`)
      return undefined
    },
    add(run, tenant) {
      forgetOldest(runs)
      runs.set(keyOf(tenant, run.id), { run, tenant })
    },
    get(id, tenant) {
      return runs.get(keyOf(tenant, id))?.run
    },
    list(tenant) {
      return [...runs.values()].filter((r) => r.tenant === tenant).map((r) => r.run).reverse()
    },
  }
}

function forgetOldest(runs: Map<string, { run: HostedRun }>): void {
  if (runs.size < MAX_KEPT_RUNS) return
  // Map order is insertion order: the first finished run is the oldest.
  for (const [key, { run }] of runs) {
    if (run.finished()) {
      runs.delete(key)
      return
    }
  }
}

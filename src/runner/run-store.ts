/**
 * The runs a host keeps (`POST /v1/runs`), beside its session store: each run with the tenant that
 * started it (another tenant is told it does not exist, as for sessions), at most MAX_ACTIVE_RUNS
 * in progress and MAX_KEPT_RUNS kept, the oldest finished one forgotten first. In memory: a run is
 * an open task of this process (on Workers, of its own Durable Object).
 */
import { type Failure, failure } from '../engine/problem.ts'
import type { HostedRun } from './hosted-run.ts'

/** Runs in progress at once per process (or Durable Object); more get 429. */
export const MAX_ACTIVE_RUNS = 4
/** Finished runs kept for their results; the oldest finished one goes first. */
export const MAX_KEPT_RUNS = 100

export interface RunStore {
  /** Why a run with this id (or any run) cannot start now: it exists (409), or too many are in progress (429). */
  refusal(id: string | undefined): Failure | undefined
  /** Keeps a started run, forgetting the oldest finished one when full. */
  add(run: HostedRun, tenant: string | undefined): void
  /** The run, if this tenant started it. */
  get(id: string, tenant: string | undefined): HostedRun | undefined
}

/**
 * @example
 * const runs = memoryRunStore()
 * const refused = runs.refusal(id); if (refused) return problem(c, refused.problem)
 */
export function memoryRunStore(): RunStore {
  const runs = new Map<string, { run: HostedRun; tenant: string | undefined }>()
  return {
    refusal(id) {
      if ([...runs.values()].filter((r) => !r.run.finished()).length >= MAX_ACTIVE_RUNS)
        return failure(429, 'Too many runs', `${MAX_ACTIVE_RUNS} runs are in progress; try again when one finishes`)
      if (id !== undefined && runs.has(id)) return failure(409, 'Run exists', `a run with id '${id}' exists`)
      return undefined
    },
    add(run, tenant) {
      forgetOldest(runs)
      runs.set(run.id, { run, tenant })
    },
    get(id, tenant) {
      const entry = runs.get(id)
      return entry && entry.tenant === tenant ? entry.run : undefined
    },
  }
}

function forgetOldest(runs: Map<string, { run: HostedRun }>): void {
  if (runs.size < MAX_KEPT_RUNS) return
  // Map order is insertion order: the first finished run is the oldest.
  for (const [id, { run }] of runs)
    if (run.finished()) {
      runs.delete(id)
      return
    }
}

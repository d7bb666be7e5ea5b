/**
 * How many eval set runs (`POST /v1/runs`) and ADK web Eval tab runs may be in progress at once,
 * per process (per Durable Object on Workers) and per tenant, so one tenant's hung runs hold only
 * its own share. Requests without a tenant (open mode) count against the process caps only.
 */

export type RunQuotas = {
  /** `/v1/runs` in progress at once (EVALSTREAM_MAX_ACTIVE_RUNS); one more is 429. */
  activeRuns: number
  /** ... of them one tenant's (EVALSTREAM_MAX_ACTIVE_RUNS_PER_TENANT). */
  activeRunsPerTenant: number
  /** Eval tab runs in progress at once (EVALSTREAM_MAX_ACTIVE_DEV_RUNS); one more is 429. */
  activeDevRuns: number
  /** ... of them one tenant's (EVALSTREAM_MAX_ACTIVE_DEV_RUNS_PER_TENANT). */
  activeDevRunsPerTenant: number
}

export const DEFAULT_RUN_QUOTAS: RunQuotas = { activeRuns: 4, activeRunsPerTenant: 2, activeDevRuns: 2, activeDevRunsPerTenant: 1 }

export const RUN_QUOTA_VARS: Record<keyof RunQuotas, string> = {
  activeRuns: 'EVALSTREAM_MAX_ACTIVE_RUNS',
  activeRunsPerTenant: 'EVALSTREAM_MAX_ACTIVE_RUNS_PER_TENANT',
  activeDevRuns: 'EVALSTREAM_MAX_ACTIVE_DEV_RUNS',
  activeDevRunsPerTenant: 'EVALSTREAM_MAX_ACTIVE_DEV_RUNS_PER_TENANT',
}

/**
 * Why one more run of `tenant` may not start, or undefined when it may: the process cap first,
 * then the tenant's share.
 * @example runRefusal({ total: 4, ofTenant: 1 }, 4, 2, 'runs', ['EVALSTREAM_MAX_ACTIVE_RUNS', '..._PER_TENANT'])
 */
export function runRefusal(
  active: { total: number; ofTenant: number },
  tenant: string | undefined,
  caps: { process: number; perTenant: number },
  what: string,
  vars: { process: string; perTenant: string },
): string | undefined {
  if (tenant !== undefined && active.ofTenant >= caps.perTenant) {
    return `${caps.perTenant} ${what} of this tenant are in progress (${vars.perTenant}); try again when one finishes`
  }
  if (active.total >= caps.process) return `${caps.process} ${what} are in progress (${vars.process}); try again when one finishes`
  return undefined
}

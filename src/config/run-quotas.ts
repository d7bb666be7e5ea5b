/** Eval set and Eval tab run quotas from EVALSTREAM_MAX_ACTIVE_*RUNS* (defaults in src/runner/run-quotas.ts). */
import { DEFAULT_RUN_QUOTAS, RUN_QUOTA_VARS, type RunQuotas } from '../runner/run-quotas.ts'
import { type Env, type Read, wholeNumbersFromEnv } from './env.ts'

/** @example runQuotasFromEnv({ EVALSTREAM_MAX_ACTIVE_RUNS: '8' }) // { ok: true, value: { activeRuns: 8, ... } } */
export function runQuotasFromEnv(env: Env): Read<RunQuotas> {
  return wholeNumbersFromEnv(env, RUN_QUOTA_VARS, DEFAULT_RUN_QUOTAS)
}

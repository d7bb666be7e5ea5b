/**
 * The engine's CPU budget (types.ts CpuBudget) from the configured limits
 * (EVALSTREAM_MAX_EVENT_CPU_MS, EVALSTREAM_MAX_SESSION_CPU_MS).
 */
import { limitName, type Limits } from '../ingest/limits.ts'
import type { CpuBudget } from './types.ts'

/**
 * Timed by `clock`, by default `performance.now()`: synchronous work holds the event loop for its
 * wall time. On Workers that clock advances only across I/O, so there the platform's own CPU limit
 * applies instead.
 * @example createSessionEngine({ spec, emit, budget: cpuBudget(limits) })
 */
export function cpuBudget(limits: Limits, clock: () => number = () => performance.now()): CpuBudget {
  return {
    maxEventCpuMs: limits.maxEventCpuMs,
    maxSessionCpuMs: limits.maxSessionCpuMs,
    clock,
    names: { event: limitName('maxEventCpuMs', limits), session: limitName('maxSessionCpuMs', limits) },
  }
}

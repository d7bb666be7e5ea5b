/**
 * The engine's CPU budget (types.ts CpuBudget) from the configured limits
 * (EVALSTREAM_MAX_EVENT_CPU_MS, EVALSTREAM_MAX_SESSION_CPU_MS).
 */
import { limitName, type Limits } from '../ingest/limits.ts'
import type { CpuBudget } from './types.ts'

/** Node's CPU time of the calling thread (Node 23.9 and later): what `threadCpuMs` reads. */
type ThreadCpuUsage = () => { user: number; system: number }

/**
 * Wall-clock ms within which the thread's CPU time is not read again: the clock answers the last
 * reading plus the wall time since, which the CPU time cannot have outgrown. Reading it is a
 * system call and an object (about 2 µs); the engine reads the clock before and after every event,
 * which takes tens of µs, so a shorter window still read it about twice per event (3.3% of the
 * server's main thread under bench/load.ts at 0.05 ms). A reading is high by at most the time the
 * thread was not running within this window, so an event's count is high by at most 1 ms against
 * EVALSTREAM_MAX_EVENT_CPU_MS's 250 ms default, and only on a machine busy enough to take the core
 * away in the middle of that event.
 */
export const CPU_CLOCK_REUSE_MS = 1

/**
 * The calling thread's CPU time in ms, where the host can tell it (Node 24), else undefined. Time
 * the thread spends waiting for a core (other processes on a busy machine) is not in it, so a
 * budget timed by it refuses the same work however loaded the machine is. It never goes back.
 * `usage` and `wallMs` are the host's (tests pass their own).
 */
export function threadCpuClock(
  usage = (globalThis as { process?: { threadCpuUsage?: ThreadCpuUsage } }).process?.threadCpuUsage,
  wallMs: () => number = () => performance.now(),
): (() => number) | undefined {
  if (typeof usage !== 'function') return undefined
  try {
    usage()
  } catch {
    // Declared but not implemented (a runtime's partial Node compatibility).
    return undefined
  }
  let readAt = -Infinity
  let read = 0
  let last = 0
  return () => {
    const now = wallMs()
    if (now - readAt < CPU_CLOCK_REUSE_MS) return (last = Math.max(last, read + (now - readAt)))
    const { user, system } = usage()
    readAt = now
    read = (user + system) / 1000
    return (last = Math.max(last, read))
  }
}

/**
 * Timed by `clock`, by default the thread's CPU time where the host has it (Node), else
 * `performance.now()`: synchronous work holds the event loop for at least its CPU time, and a
 * machine busy with other processes must not make the same event cost more. On Workers the wall
 * clock advances only across I/O, so there the platform's own CPU limit applies instead.
 * @example createSessionEngine({ spec, emit, budget: cpuBudget(limits) })
 */
export function cpuBudget(limits: Limits, clock: () => number = threadCpuClock() ?? (() => performance.now())): CpuBudget {
  return {
    maxEventCpuMs: limits.maxEventCpuMs,
    maxSessionCpuMs: limits.maxSessionCpuMs,
    clock,
    names: { event: limitName('maxEventCpuMs', limits), session: limitName('maxSessionCpuMs', limits) },
  }
}

/**
 * The `error` data when one event's scoring time (`spentMs`) or the session's total so far
 * (`totalMs`, that event included) is past the budget; undefined while within it.
 * @example budgetExceeded(budget, 7, 80, 120) // { kind: 'cpu_budget_exhausted', index: 7, ... } past a 50 ms event limit
 */
export function budgetExceeded(budget: CpuBudget, index: number, spentMs: number, totalMs: number) {
  const eventOver = spentMs > budget.maxEventCpuMs
  if (!eventOver && totalMs <= budget.maxSessionCpuMs) return undefined
  const [name, value] = eventOver
    ? [budget.names?.event ?? 'maxEventCpuMs', budget.maxEventCpuMs]
    : [budget.names?.session ?? 'maxSessionCpuMs', budget.maxSessionCpuMs]
  const what = eventOver
    ? `event ${index} took ${round(spentMs)} ms to score`
    : `scoring took ${round(totalMs)} ms in total by event ${index}`
  return {
    kind: 'cpu_budget_exhausted',
    index,
    message: `${what}, more than the ${value} ms allowed (${name}); later events are recorded but not scored`,
    limit: { name: name.split('=')[0]!, value },
    spent_ms: round(eventOver ? spentMs : totalMs),
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10
}

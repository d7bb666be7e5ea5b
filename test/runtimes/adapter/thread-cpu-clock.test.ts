/**
 * The CPU budget's default clock on Node is the thread's CPU time: a thread that waits (here blocked
 * in Atomics.wait, as it would be while other processes hold the cores) spends none of its budget,
 * and one that works does. Here, not in the unit project, because it blocks for real.
 * Covers: src/engine/cpu-budget.ts.
 */
import { describe, expect, it } from 'vitest'
import { cpuBudget, threadCpuClock } from '../../../src/engine/cpu-budget.ts'
import { DEFAULT_LIMITS } from '../../../src/ingest/limits.ts'

describe('the CPU budget clock', () => {
  it('counts work, not waiting', () => {
    const clock = threadCpuClock()
    expect(clock, 'Node 24 has process.threadCpuUsage').toBeDefined()
    expect(cpuBudget(DEFAULT_LIMITS).clock.toString()).toBe(clock!.toString())

    const beforeWait = clock!()
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200)
    expect(clock!() - beforeWait).toBeLessThan(50)

    const beforeWork = clock!()
    let x = 0
    const until = performance.now() + 100
    // 100 ms of wall time spinning: on a busy machine only part of it is CPU time, but never none.
    while (performance.now() < until) x = (x * 31 + 7) % 1_000_003
    expect(x).toBeGreaterThanOrEqual(0)
    expect(clock!() - beforeWork).toBeGreaterThan(0)
  })
})

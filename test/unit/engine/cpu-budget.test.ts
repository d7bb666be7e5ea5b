/**
 * The engine's CPU budget, timed by an injected clock so every run spends exactly the same:
 * past the per-session or the per-event budget the session emits one `error` result naming the
 * limit, the event and the time spent, scores nothing more, and can still be read and ended.
 */
import { describe, expect, it } from 'vitest'
import { CPU_CLOCK_REUSE_MS, cpuBudget, threadCpuClock } from '../../../src/engine/cpu-budget.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import type { EngineEmission } from '../../../src/engine/types.ts'
import { DEFAULT_LIMITS } from '../../../src/ingest/limits.ts'
import { limitsFromEnv } from '../../../src/config/ingest-limits.ts'
import type { IngestedEvent } from '../../../src/engine/types.ts'

/** A tool call event of its own invocation, then its final answer: two events per invocation. */
function invocationEvents(n: number, from: number): IngestedEvent[] {
  const id = `e-${n}`
  const call = { author: 'agent', invocation_id: id, content: { role: 'model', parts: [{ function_call: { name: 'f', args: { n } } }] } }
  const answer = { author: 'agent', invocation_id: id, content: { role: 'model', parts: [{ text: `done ${n}` }] } }
  return [call, answer].map((event, k) => ({ index: from + k, event: event as IngestedEvent['event'], raw: event }))
}

/** A clock that moves only when read: by `costOf(index)` ms across the scoring of event `index`. */
function steppingClock(costOf: (index: number) => number) {
  let now = 0
  let reads = 0
  return () => {
    const index = Math.floor(reads / 2)
    if (reads++ % 2 === 1) now += costOf(index)
    return now
  }
}

function session(budget: ReturnType<typeof cpuBudget> | undefined) {
  const emitted: EngineEmission[] = []
  const created = createSessionEngine({
    spec: { session_id: 's', eval_config: { criteria: { tool_trajectory_avg_score: 1 } } },
    emit: (b) => emitted.push(b),
    ...(budget ? { budget } : {}),
  })
  if (!created.ok) throw new Error(created.problem.detail)
  const events = Array.from({ length: 20 }, (_, n) => invocationEvents(n, 2 * n)).flat()
  for (const item of events) created.engine.push(item)
  return { engine: created.engine, emitted }
}

const errors = (emitted: EngineEmission[]) => emitted.filter((e) => e.type === 'error').map((e) => e.data as Record<string, unknown>)
const scoredInvocations = (emitted: EngineEmission[]) =>
  new Set(emitted.filter((e) => e.type === 'criterion.result').map((e) => (e.data as { invocation_index: number }).invocation_index)).size

describe('CPU budget per session and per event', () => {
  it('session budget: 1 ms per event, 10 ms allowed: the 11th event (index 10) stops scoring', async () => {
    const limits = { ...DEFAULT_LIMITS, maxSessionCpuMs: 10 }
    const { engine, emitted } = session(cpuBudget(limits, steppingClock(() => 1)))
    expect(errors(emitted)).toEqual([
      {
        kind: 'cpu_budget_exhausted',
        index: 10,
        message:
          'scoring took 11 ms in total by event 10, more than the 10 ms allowed (EVALSTREAM_MAX_SESSION_CPU_MS=10); later events are recorded but not scored',
        limit: { name: 'EVALSTREAM_MAX_SESSION_CPU_MS', value: 10 },
        spent_ms: 11,
      },
    ])
    // Invocations 0-4 completed within budget (event 10 opens invocation 5, which never completes).
    expect(scoredInvocations(emitted)).toBe(5)
    const result = await engine.end()
    expect(result.eval_id).toBeDefined()
    expect(errors(emitted)).toHaveLength(1)
  })

  it('event budget: one event costing more than allowed stops scoring at that event', () => {
    const limits = { ...DEFAULT_LIMITS, maxEventCpuMs: 50 }
    const { emitted } = session(cpuBudget(limits, steppingClock((index) => (index === 7 ? 51 : 0.5))))
    expect(errors(emitted)).toEqual([
      expect.objectContaining({
        kind: 'cpu_budget_exhausted',
        index: 7,
        spent_ms: 51,
        limit: { name: 'EVALSTREAM_MAX_EVENT_CPU_MS', value: 50 },
      }),
    ])
    // Event 7 is invocation 3's final answer: scoring it completed invocation 3 before the clock was read.
    expect(scoredInvocations(emitted)).toBe(4)
  })

  it('within budget (or without one) nothing changes: every invocation scored, no error', () => {
    const within = session(cpuBudget(DEFAULT_LIMITS, steppingClock(() => 1)))
    const unbudgeted = session(undefined)
    expect(errors(within.emitted)).toEqual([])
    expect(within.emitted).toEqual(unbudgeted.emitted)
    expect(scoredInvocations(within.emitted)).toBe(20)
  })

  it('configured by EVALSTREAM_MAX_EVENT_CPU_MS and EVALSTREAM_MAX_SESSION_CPU_MS; defaults 250 and 60,000', () => {
    expect([DEFAULT_LIMITS.maxEventCpuMs, DEFAULT_LIMITS.maxSessionCpuMs]).toEqual([250, 60_000])
    const read = limitsFromEnv({ EVALSTREAM_MAX_EVENT_CPU_MS: '20', EVALSTREAM_MAX_SESSION_CPU_MS: '5_000' })
    expect(read).toEqual({ ok: true, value: { ...DEFAULT_LIMITS, maxEventCpuMs: 20, maxSessionCpuMs: 5000 } })
    expect(limitsFromEnv({ EVALSTREAM_MAX_EVENT_CPU_MS: '0' })).toMatchObject({ ok: false })
  })
})

describe('the thread CPU clock', () => {
  it(`reads the thread's CPU time at most once per CPU_CLOCK_REUSE_MS (${CPU_CLOCK_REUSE_MS} ms) of wall time, high by no more than the wall time since, and never goes back`, () => {
    const w = CPU_CLOCK_REUSE_MS
    let wall = 1_000
    let cpuUs = 5_000
    let reads = 0
    const clock = threadCpuClock(() => (reads++, { user: cpuUs, system: 0 }), () => wall)!
    reads = 0 // the probe's call when the clock is made
    expect(clock()).toBe(5)
    expect(reads).toBe(1)
    // 0.6 of the window later, with 0.4 of it in CPU: the last reading plus the wall time, no new read.
    wall += 0.6 * w
    cpuUs += 400 * w
    expect(clock()).toBeCloseTo(5 + 0.6 * w, 9)
    expect(reads).toBe(1)
    // Past the window: read again. The thread ran 0.4 of the 1.2 windows: the estimate above was
    // high, so the clock holds at it rather than going back.
    wall += 0.6 * w
    expect(clock()).toBeCloseTo(5 + 0.6 * w, 9)
    expect(reads).toBe(2)
    // Later work is counted from the new reading.
    wall += 10 * w
    cpuUs += 4_000 * w
    expect(clock()).toBeCloseTo(5 + 4.4 * w, 9)
    expect(reads).toBe(3)
  })

  it("is undefined where the host cannot tell a thread's CPU time", () => {
    expect(threadCpuClock(null as never)).toBeUndefined()
    expect(threadCpuClock(() => {
      throw new Error('not implemented')
    })).toBeUndefined()
  })
})

/**
 * Admission on Node's real event-loop measurements (src/adapter/node/loop-monitor.ts): the test
 * blocks its own loop, so the answers do not depend on how loaded the machine is. A loop blocked
 * for 1.5 s is about 1.5 s late and busy all of the last second however slow the machine: the
 * create is refused with Retry-After from that delay. A monitor that has just started never reads
 * the loop busier than the share of a window it has measured (start-up is not counted; the
 * admission that follows is in test/unit/http/loop-pressure.test.ts). Here, and not in the unit
 * project, because it blocks the loop for real.
 * Covers: src/adapter/node/loop-monitor.ts, src/http/admission.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { LAG_WINDOW_MS, loopPressureMonitor, TICK_MS } from '../../../src/adapter/node/loop-monitor.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { admissionFromLoop } from '../../../src/http/admission.ts'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'

/** Holds the loop for `ms` of wall-clock time, as a long synchronous turn would. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) { /* the turn in progress */ }
}

/** One turn of the loop's timers phase: the delay histogram records the late turn before we ask. */
const nextTimers = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('admission on the real loop monitor', () => {
  const monitors: { stop(): void }[] = []
  afterEach(() => {
    for (const m of monitors.splice(0)) m.stop()
  })

  function app() {
    const monitor = loopPressureMonitor()
    monitors.push(monitor)
    const served = createApp({
      store: memorySessionStore({ sweeper: 'manual' }),
      createEngine: (o) => createSessionEngine(o),
      admission: admissionFromLoop(monitor.read, { lagMs: 250, busyShare: 0.9 }),
    })
    const create = (id: string) =>
      served.request('/v1/sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: id }),
      })
    return { monitor, create }
  }

  it('never reads a just-started loop as busier than the time it has been measured', async () => {
    const started = performance.now()
    const { monitor } = app()
    // The first turns after start compile the code: one of 300 ms.
    blockLoop(300)
    await nextTimers()
    const elapsed = performance.now() - started
    // The part of the first window before the monitor started counts as idle, so the share is at
    // most the time measured over a whole window, however slow the machine made these steps.
    expect(monitor.read().busyShare).toBeLessThanOrEqual(Math.min(1, elapsed / LAG_WINDOW_MS) + 0.01)
  })

  it('refuses while its own work holds the loop, with Retry-After from the measured delay', async () => {
    const { monitor, create } = app()
    blockLoop(1_500)
    await nextTimers()
    const read = monitor.read()
    // The tick due during the block came at least the block's length, less one tick interval, late.
    expect(read.delayMs).toBeGreaterThanOrEqual(1_500 - TICK_MS)
    expect(read.busyShare).toBeGreaterThanOrEqual(0.9)
    const refused = await create('late')
    expect(refused.status).toBe(503)
    const body = (await refused.json()) as { limit: unknown; detail: string }
    expect(body.limit).toEqual({ name: 'EVALSTREAM_ADMISSION_LAG_MS', value: 250 })
    // Twice the delay, rounded up: at least 3 s for a 1.5 s block.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(3)
    expect(body.detail).toMatch(/event loop is \d+ ms late/)
  })
})

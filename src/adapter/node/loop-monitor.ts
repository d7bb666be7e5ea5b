/**
 * The event loop's pressure for admission (src/http/admission.ts), measured by Node:
 * - how late the loop is: perf_hooks' delay histogram, read and reset once per LAG_WINDOW_MS (so a
 *   reading reflects the last second, not the whole run), how late a TICK_MS tick came in this
 *   window and the last (the histogram records nothing until its timer has fired twice), and how
 *   late it is right now (the turn in progress);
 * - how busy it is: the loop's utilization (performance.eventLoopUtilization) over the last window,
 *   sampled at every tick (src/http/loop-pressure.ts does the arithmetic).
 * Start it once the server listens: nothing before that counts. Both timers are unref'd: they never
 * keep the process alive.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import type { LoopPressure } from '../../http/admission.ts'
import { LoopActivityWindow } from '../../http/loop-pressure.ts'

/** How long a measurement covers (ms). */
export const LAG_WINDOW_MS = 1_000
/** A tick this often marks the loop as alive: how long since the last one is the current turn's delay. */
export const TICK_MS = 10

const activeMs = () => performance.eventLoopUtilization().active

/** @example const loop = loopPressureMonitor(); admissionFromLoop(loop.read, { lagMs: 250, busyShare: 0.9 }) */
export function loopPressureMonitor(): { read: () => LoopPressure; stop(): void } {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  let last = 0
  let lateTick = 0
  const timer = setInterval(() => {
    last = Math.max(lateTick, histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0)
    lateTick = 0
    histogram.reset()
  }, LAG_WINDOW_MS)
  timer.unref()
  // A burst (a thousand creates read in one long turn) arrives before any histogram sees the turn
  // it causes: how late the tick is right now counts as well.
  let lastTick = performance.now()
  const activity = new LoopActivityWindow(LAG_WINDOW_MS, TICK_MS, { atMs: lastTick, activeMs: activeMs() })
  const tick = setInterval(() => {
    const now = performance.now()
    lateTick = Math.max(lateTick, now - lastTick - TICK_MS)
    lastTick = now
    activity.sample({ atMs: lastTick, activeMs: activeMs() })
  }, TICK_MS)
  tick.unref()
  return {
    read: () => {
      const now = performance.now()
      return {
        // The running window counts as soon as it is worse than the last complete one.
        delayMs: Math.max(last, lateTick, histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0, now - lastTick - TICK_MS),
        busyShare: activity.busyShare({ atMs: now, activeMs: activeMs() }),
      }
    },
    stop() {
      clearInterval(timer)
      clearInterval(tick)
      histogram.disable()
    },
  }
}

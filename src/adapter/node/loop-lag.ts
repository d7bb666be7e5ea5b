/**
 * The event loop's recent delay for admission (src/http/admission.ts): perf_hooks' histogram,
 * read and reset once per LAG_WINDOW_MS, so a refusal reflects the last second, not the whole run,
 * and how late a TICK_MS tick is right now (the turn in progress). Both timers are unref'd: they
 * never keep the process alive.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'

/** How long a measurement covers (ms). */
export const LAG_WINDOW_MS = 1_000
/** A tick this often marks the loop as alive: how long since the last one is the current turn's delay. */
export const TICK_MS = 10

/** @example const recent = loopLagMonitor(); admissionFromLag(recent.p99Ms, 250) */
export function loopLagMonitor(): { p99Ms: () => number; stop(): void } {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  let last = 0
  const timer = setInterval(() => {
    last = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0
    histogram.reset()
  }, LAG_WINDOW_MS)
  timer.unref()
  // A burst (a thousand creates read in one long turn) arrives before any histogram sees the turn
  // it causes: how late the tick is right now counts as well.
  let lastTick = performance.now()
  const tick = setInterval(() => {
    lastTick = performance.now()
  }, TICK_MS)
  tick.unref()
  return {
    // The running window counts as soon as it is worse than the last complete one.
    p99Ms: () => Math.max(last, histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0, performance.now() - lastTick - TICK_MS),
    stop() {
      clearInterval(timer)
      clearInterval(tick)
      histogram.disable()
    },
  }
}

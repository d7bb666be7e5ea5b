/**
 * The event loop's recent delay for admission (src/http/admission.ts): perf_hooks' histogram,
 * read and reset once per LAG_WINDOW_MS, so a refusal reflects the last second, not the whole run.
 * The window's own timer is unref'd: it never keeps the process alive.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'

/** How long a measurement covers (ms). */
export const LAG_WINDOW_MS = 1_000

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
  return {
    // The running window counts as soon as it is worse than the last complete one.
    p99Ms: () => Math.max(last, histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0),
    stop() {
      clearInterval(timer)
      histogram.disable()
    },
  }
}

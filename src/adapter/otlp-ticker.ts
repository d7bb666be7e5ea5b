/**
 * The timer behind the OTLP monitor on Node and Deno: completes traces past their grace period and
 * ends idle conversations. Unref'd, so it never keeps a process alive; one tick at a time.
 */
import { unrefTimer } from '../ingest/unref-timer.ts'
import type { OtlpMonitor } from '../otlp-monitor/monitor.ts'

/** @example const stop = startOtlpTicker(deps.otlp.monitor, OTLP_TICK_MS) */
export function startOtlpTicker(monitor: Pick<OtlpMonitor, 'tick'>, everyMs: number): () => void {
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    monitor
      .tick()
      .catch((e) => console.error(`evalstream: OTLP timer: ${(e as Error).message}`))
      .finally(() => (running = false))
  }, everyMs)
  unrefTimer(timer)
  return () => clearInterval(timer)
}

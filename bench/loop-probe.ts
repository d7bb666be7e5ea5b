/**
 * Preloaded into the server by bench/load.ts (`node --import ./bench/loop-probe.ts`): measures how
 * long the server's event loop is held (node:perf_hooks monitorEventLoopDelay, 10 ms resolution)
 * and prints the running percentiles on stdout four times a second, where the bench reads them.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'

const histogram = monitorEventLoopDelay({ resolution: 10 })
histogram.enable()
const ms = (ns: number) => (ns / 1e6).toFixed(1)
setInterval(() => {
  if (histogram.count === 0) return
  process.stdout.write(`loop-delay p50=${ms(histogram.percentile(50))} p99=${ms(histogram.percentile(99))} max=${ms(histogram.max)}\n`)
}, 250).unref()

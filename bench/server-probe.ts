/**
 * Loaded into the server a load benchmark starts (`node --import ./bench/server-probe.ts ...`), never
 * by the service itself: it measures from inside the server process what a client cannot see.
 *
 * - event-loop delay (perf_hooks.monitorEventLoopDelay, 10 ms resolution): how long a ready callback
 *   (an accept, a request, a timer) waited for the loop, p50 / p99 / max;
 * - when each request reached the server's request handler, as the response header
 *   `x-probe-received-at` (ms since the epoch, sub-ms resolution), so the client can split its
 *   latency into waiting to be read (accept queue, loop delay, parsing) and serving.
 *
 * The numbers go to the file named by EVALSTREAM_PROBE_OUT as one JSON line, every second and at
 * exit (a benchmark that SIGTERMs the server reads the last line).
 */
import { writeFileSync } from 'node:fs'
import { Server } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'

const out = process.env.EVALSTREAM_PROBE_OUT
const delay = monitorEventLoopDelay({ resolution: 10 })
delay.enable()
let requests = 0
let connections = 0

/** Milliseconds since the epoch with sub-ms precision, comparable across processes on one machine. */
const epochMs = () => performance.timeOrigin + performance.now()

const emit = Server.prototype.emit
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
  if (event === 'request') {
    requests += 1
    const res = args[1] as { setHeader(name: string, value: string): void }
    res.setHeader('x-probe-received-at', epochMs().toFixed(3))
  } else if (event === 'connection') connections += 1
  return (emit as (...a: unknown[]) => boolean).apply(this, [event, ...args])
} as typeof Server.prototype.emit

const ms = (ns: number) => Number((ns / 1e6).toFixed(2))
const write = () => {
  if (!out) return
  const line = {
    loopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max), mean: ms(delay.mean) },
    requests,
    connections,
    heapUsedMiB: Number((process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)),
  }
  writeFileSync(out, JSON.stringify(line) + '\n')
}
setInterval(write, 1000).unref()
process.on('exit', write)

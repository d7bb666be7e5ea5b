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
 * - garbage collection on the main thread (PerformanceObserver 'gc' entries): pauses by kind (minor
 *   scavenges, major mark-compacts), their total and longest, and the peak heap used, sampled each
 *   second, so a long loop turn can be told apart from a long collection.
 *
 * - the worker threads' heaps (the SQLite writer's, the results index's): each one's peak used and
 *   reserved sizes, sampled each second, since each is an isolate of its own inside the server's RSS.
 *
 * - the longest loop iterations in this thread's CPU time (process.threadCpuUsage read by a 5 ms
 *   timer: the CPU spent between two of its ticks is one iteration's work, callbacks and collections
 *   on this thread, whatever the machine's load), each with its wall time, the collection pauses
 *   inside it and when it ended (monotonic µs, the clock of a --cpu-prof profile, so
 *   bench/turn-anatomy.ts can say which functions ran in it), and the thread's CPU time in all
 *   since the server listened.
 *
 * - with EVALSTREAM_PROBE_ALLOCATIONS=FILE, a sampled profile of every allocation (garbage included).
 *
 * The numbers go to the file named by EVALSTREAM_PROBE_OUT as one JSON line, every second and at
 * exit (a benchmark that SIGTERMs the server reads the last line).
 */
import { writeFileSync } from 'node:fs'
import inspector from 'node:inspector'
import { Server } from 'node:http'
import { syncBuiltinESMExports } from 'node:module'
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import workerThreads from 'node:worker_threads'

const out = process.env.EVALSTREAM_PROBE_OUT
const delay = monitorEventLoopDelay({ resolution: 10 })
delay.enable()
let requests = 0
let connections = 0
let peakHeapUsed = 0
let peakHeapTotal = 0
let peakExternal = 0
let peakArrayBuffers = 0
const gc = { minor: { count: 0, totalMs: 0, maxMs: 0 }, major: { count: 0, totalMs: 0, maxMs: 0 } }
/** The last seconds' pauses (start and end in performance.now() ms, major or not), to tell what part of a long iteration was collection. */
let recentPauses: Array<{ start: number; end: number; major: boolean }> = []
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = ((entry as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind
    const bucket = kind === constants.NODE_PERFORMANCE_GC_MAJOR ? gc.major : gc.minor
    bucket.count += 1
    bucket.totalMs += entry.duration
    bucket.maxMs = Math.max(bucket.maxMs, entry.duration)
    recentPauses.push({
      start: entry.startTime,
      end: entry.startTime + entry.duration,
      major: kind === constants.NODE_PERFORMANCE_GC_MAJOR,
    })
  }
}).observe({ entryTypes: ['gc'] })

/** How often the iteration probe ticks: an iteration shorter than this is not told apart from idle time. */
const TURN_TICK_MS = 5
/** The longest iterations kept, by CPU time. */
const TURNS_KEPT = 5
type Turn = { cpuMs: number; wallMs: number; gcMs: number; majorGcMs: number; endUs: number; endMs: number }
const longestTurns: Turn[] = []
let pendingTurns: Turn[] = []
const threadCpuMs = () => {
  const { user, system } = process.threadCpuUsage()
  return (user + system) / 1000
}
let lastTick = performance.now()
let lastCpu = threadCpuMs()
let cpuAtListen = lastCpu
setInterval(() => {
  const at = performance.now()
  const cpu = threadCpuMs()
  const turn = {
    cpuMs: cpu - lastCpu,
    wallMs: at - lastTick,
    gcMs: 0,
    majorGcMs: 0,
    endUs: Number(process.hrtime.bigint() / 1000n),
    endMs: at,
  }
  lastTick = at
  lastCpu = cpu
  // Its collections are known only once the observer has run (a later turn): kept pending until then.
  if (turn.cpuMs > TURN_TICK_MS && (longestTurns.length < TURNS_KEPT || turn.cpuMs > longestTurns.at(-1)!.cpuMs)) pendingTurns.push(turn)
}, TURN_TICK_MS).unref()
/** Settles pending turns with the pauses inside them, and keeps the longest. */
const settleTurns = () => {
  for (const turn of pendingTurns) {
    for (const p of recentPauses) {
      const inside = Math.max(0, Math.min(p.end, turn.endMs) - Math.max(p.start, turn.endMs - turn.wallMs))
      turn.gcMs += inside
      if (p.major) turn.majorGcMs += inside
    }
    longestTurns.push(turn)
  }
  pendingTurns = []
  longestTurns.sort((a, b) => b.cpuMs - a.cpuMs).splice(TURNS_KEPT)
  const keepFrom = performance.now() - 10_000
  recentPauses = recentPauses.filter((p) => p.end >= keepFrom)
}

// Every worker the server starts, to sample its heap (the server imports Worker after this runs).
const workers: workerThreads.Worker[] = []
/** Per worker, in the order the server started them: peak heap used and reserved, in MiB. */
const workerPeaks: Array<{ usedMiB: number; totalMiB: number }> = []
const OriginalWorker = workerThreads.Worker
workerThreads.Worker = class extends OriginalWorker {
  constructor(...args: ConstructorParameters<typeof OriginalWorker>) {
    super(...args)
    workers.push(this)
  }
} as typeof OriginalWorker
syncBuiltinESMExports()
const sampleWorkers = async () => {
  for (const [i, worker] of workers.entries()) {
    const stats = await worker.getHeapStatistics().catch(() => undefined)
    const peak = (workerPeaks[i] ??= { usedMiB: 0, totalMiB: 0 })
    peak.usedMiB = Math.max(peak.usedMiB, Number(((stats?.used_heap_size ?? 0) / 2 ** 20).toFixed(1)))
    peak.totalMiB = Math.max(peak.totalMiB, Number(((stats?.total_heap_size ?? 0) / 2 ** 20).toFixed(1)))
  }
}

/** Milliseconds since the epoch with sub-ms precision, comparable across processes on one machine. */
const epochMs = () => performance.timeOrigin + performance.now()

const emit = Server.prototype.emit
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
  if (event === 'request') {
    requests += 1
    const res = args[1] as { setHeader(name: string, value: string): void }
    res.setHeader('x-probe-received-at', epochMs().toFixed(3))
  } else if (event === 'connection') connections += 1
  else if (event === 'listening') {
    // Loading the server's modules is not a loop iteration anyone waits on: measured from here.
    longestTurns.length = 0
    pendingTurns = []
    lastTick = performance.now()
    lastCpu = threadCpuMs()
    cpuAtListen = lastCpu
  }
  return (emit as (...a: unknown[]) => boolean).apply(this, [event, ...args])
} as typeof Server.prototype.emit

const ms = (ns: number) => Number((ns / 1e6).toFixed(2))
const write = () => {
  if (!out) return
  settleTurns()
  const memory = process.memoryUsage()
  peakHeapUsed = Math.max(peakHeapUsed, memory.heapUsed)
  peakHeapTotal = Math.max(peakHeapTotal, memory.heapTotal)
  peakExternal = Math.max(peakExternal, memory.external)
  peakArrayBuffers = Math.max(peakArrayBuffers, memory.arrayBuffers)
  const round = (b: typeof gc.minor) => ({ count: b.count, totalMs: Math.round(b.totalMs), maxMs: Number(b.maxMs.toFixed(1)) })
  const line = {
    loopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max), mean: ms(delay.mean) },
    requests,
    connections,
    heapUsedMiB: Number((memory.heapUsed / 2 ** 20).toFixed(1)),
    peakHeapUsedMiB: Number((peakHeapUsed / 2 ** 20).toFixed(1)),
    // What V8 holds from the system for the heap (used or not): part of RSS.
    peakHeapTotalMiB: Number((peakHeapTotal / 2 ** 20).toFixed(1)),
    // Outside the heap: Buffers and ArrayBuffers (socket writes, request bodies) and native objects.
    peakExternalMiB: Number((peakExternal / 2 ** 20).toFixed(1)),
    peakArrayBuffersMiB: Number((peakArrayBuffers / 2 ** 20).toFixed(1)),
    gc: { minor: round(gc.minor), major: round(gc.major) },
    // The main thread's CPU since it started listening (module loading left out).
    threadCpuMs: Math.round(threadCpuMs() - cpuAtListen),
    longestTurns: longestTurns.map((t) => ({
      cpuMs: Number(t.cpuMs.toFixed(1)),
      wallMs: Number(t.wallMs.toFixed(1)),
      gcMs: Number(t.gcMs.toFixed(1)),
      majorGcMs: Number(t.majorGcMs.toFixed(1)),
      endUs: t.endUs,
    })),
    workerPeaks,
  }
  writeFileSync(out, JSON.stringify(line) + '\n')
}
setInterval(() => void sampleWorkers().then(write), 1000).unref()
process.on('exit', write)

// A server without its own SIGTERM handler (the replay baseline) would die without 'exit', and
// without the allocation profile below or the CPU profile of --cpu-prof: make it exit.
process.on('SIGTERM', () => {
  if (process.listenerCount('SIGTERM') === 1) process.exit(143)
})

// With EVALSTREAM_PROBE_ALLOCATIONS=FILE: V8's sampling heap profiler over the whole run, counting
// objects the collector already took too, so FILE (a .heapprofile for Chrome DevTools) says where
// the garbage comes from, not only what is still live at exit.
const allocationsOut = process.env.EVALSTREAM_PROBE_ALLOCATIONS
if (allocationsOut) {
  const session = new inspector.Session()
  session.connect()
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 64 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  })
  // The main thread's inspector session answers synchronously, so this runs to its end at exit.
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(allocationsOut, JSON.stringify(result.profile))
    })
  })
}

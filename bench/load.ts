/**
 * Load on loopback, bounded in count and time: the Node server (`npm start`, a child process, on a
 * fresh SQLite file in a temp dir, or `--db memory`) takes N sessions x E events while S
 * subscribers per session follow each session's result stream.
 * Reports lost results (a subscriber missing a seq that GET /v1/sessions/{id} says exists; must be
 * 0), duplicate results (a seq received twice by one subscriber; must be 0), verdict latency (from
 * sending the POST that carries an invocation's final answer, the event that decides its
 * tool_trajectory_avg_score, to a subscriber receiving that criterion.result; also without each
 * session's first and last invocation, which meet the burst of creates and of ends), the server's
 * peak RSS and CPU, and this client's CPU (it shares the cores). Stops by itself after
 * --max-seconds, reporting what it has.
 *
 * Closed loop by default: each session sends its next upload when the last is answered, so the
 * run measures throughput and its latencies are those of a saturated server. `--rate R` offers R
 * events/s in all instead, each session on its own schedule: the latency at a given load.
 *
 * From inside the server (bench/server-probe.ts, loaded with --import): event-loop delay p50/p99/max
 * and when each request reached its handler, which splits verdict latency (first subscriber) into
 * queue (POST sent -> handler reached: accept queue, loop delay, parsing), server (handler -> the
 * first of the POST's response and the verdict at the client) and delivery (how much later than the
 * POST's response the verdict arrived; 0 when it came first). The
 * listening socket's accept queue is sampled from /proc/net/tcp every second; the mean wait in it
 * follows from Little's law (mean length / connections accepted per second).
 *
 * With EVALSTREAM_PROBE_ALLOCATIONS=FILE (a path per run; the server writes it at exit), also the
 * server's allocation per event posted (garbage included, from V8's sampling heap profiler) and the
 * functions that allocated most.
 *
 * Exits 1 on any failed request, lost, duplicate or missing result or failed session.
 *
 *   npx node bench/load.ts [--sessions 1000] [--events 200] [--subscribers 2] [--max-seconds 300]
 *     [--db sqlite|memory] [--root DIR (another checkout's server, for A/B runs)]
 *     [--server both|all|evalstream|replay|stored] [--rate EVENTS_PER_SECOND (0: closed loop)] [--warmup SESSIONS]
 *     [--runtime node|deno (the service's; the baselines run on Node)]
 *
 * `--warmup W` first runs W sessions of the same shape through the server, closed loop and not
 * measured: a server that has run for a while has compiled its code (V8 compiles hot functions on
 * background threads, counted as its helper threads' CPU) and grown its heap and caches, and a
 * short run from a cold start charges that once-only work to every event it measured. The
 * counters, latencies and CPU start after the warm-up; the process-wide figures (peak RSS, GC
 * pauses, peak heaps, the allocation profile) cover the warm-up too, and allocation per event is
 * divided by the events of both.
 *
 * By default (`--server both`) it runs the replay baseline (bench/load-replay.ts), then the
 * service, and prints two lines comparing them: throughput and latency, then server CPU per event
 * (and, with EVALSTREAM_PROBE_ALLOCATIONS, allocation per event) as a ratio to the baseline's. The baseline answers the same requests with the
 * service's own frames for the load case, nothing scored or stored: its numbers are the ceiling of
 * this load shape on this machine, what the client, HTTP and SSE cost alone.
 *
 * `--server stored` is the storing replay: the same baseline, but it also keeps every session's
 * spec, event line and frame in a SQLite file, committed before it answers an upload and sends
 * its frames (bench/load-replay-store.ts), the least a relay pays that loses nothing it
 * acknowledged. `--server all` runs the replay, the storing replay and the service, in that order,
 * and compares the service with both baselines.
 *
 * Each invocation is 4 events (tool call, tool response, partial text, final text) posted together
 * as NDJSON; the eval case expects every invocation, so each one gets a verdict per criterion.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { CONFIG, invocationBody, loadCase, METRIC } from './load-case.ts'
import { countStreams, readResultStream, type ReceivedStream } from './load-client.ts'
import { abortAll, type Answer, call, openStream } from './load-http.ts'
import { acceptQueue, cpuSeconds, freePort, rssMiB, threadCpuSeconds } from './proc-stats.ts'
import { allocationsOf } from './heap-profile.ts'
import { startFlags } from './server-flags.ts'

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1000' },
    events: { type: 'string', default: '200' },
    subscribers: { type: 'string', default: '2' },
    'max-seconds': { type: 'string', default: '300' },
    rate: { type: 'string', default: '0' },
    warmup: { type: 'string', default: '0' },
    db: { type: 'string', default: 'sqlite' },
    root: { type: 'string', default: '.' },
    server: { type: 'string', default: 'both' },
    runtime: { type: 'string', default: 'node' },
  },
})
if (!['node', 'deno'].includes(values.runtime)) throw new Error(`--runtime is node or deno, not '${values.runtime}'`)
if (!['evalstream', 'replay', 'stored', 'both', 'all'].includes(values.server)) {
  throw new Error(`--server is both, all, evalstream, replay or stored, not '${values.server}'`)
}
if (values.server === 'both') process.exit(await sideBySide(['replay']))
if (values.server === 'all') process.exit(await sideBySide(['replay', 'stored']))

/**
 * The baselines, then evalstream, each in a process of its own (a fresh client, a fresh server),
 * then lines comparing evalstream with each baseline. Exits with the worst of the exit codes.
 */
async function sideBySide(baselines: string[]): Promise<number> {
  const args = process.argv.slice(2).filter((a, i, all) => a !== '--server' && all[i - 1] !== '--server' && !a.startsWith('--server='))
  const figures: Record<
    string,
    { perSecond?: number; p99?: number; steadyP99?: number; rss?: number; cpuUs?: number; allocKiB?: number; code: number }
  > = {}
  for (const target of [...baselines, 'evalstream']) {
    const child = spawn(process.execPath, [process.argv[1]!, ...args, '--server', target], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      process.stdout.write(d)
    })
    const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)))
    const number = (re: RegExp) => {
      const found = re.exec(out)
      return found ? Number(found[1]) : undefined
    }
    figures[target] = {
      perSecond: number(/events posted\/s: (\d+)/),
      p99: number(/verdict latency \(.*p99 ([\d.]+) ms/),
      steadyP99: number(/without each session's first and last invocation .*p99 ([\d.]+) ms/),
      rss: number(/peak (\d+) MiB; failed/),
      cpuUs: number(/server CPU \(all threads\): [\d.]+ s, (\d+) us per event posted/),
      allocKiB: number(/server allocation .*, ([\d.]+) KiB per event posted/),
      code,
    }
  }
  const e = figures.evalstream!
  for (const baseline of baselines) {
    const r = figures[baseline]!
    const name = baseline === 'stored' ? 'storing replay baseline' : 'replay baseline'
    const ratio = r.perSecond && e.perSecond ? `${((100 * e.perSecond) / r.perSecond).toFixed(0)}%` : 'n/a'
    console.log(
      `side by side: evalstream ${e.perSecond ?? 'n/a'} events/s = ${ratio} of the ${name}'s ${r.perSecond ?? 'n/a'}; ` +
        `verdict p99 ${e.p99 ?? 'n/a'} vs ${r.p99 ?? 'n/a'} ms (without first and last invocations ${e.steadyP99 ?? 'n/a'} vs ${
          r.steadyP99 ?? 'n/a'
        } ms); peak RSS ${e.rss ?? 'n/a'} vs ${r.rss ?? 'n/a'} MiB`,
    )
    const cpuRatio = r.cpuUs && e.cpuUs ? `${(e.cpuUs / r.cpuUs).toFixed(1)}x` : 'n/a'
    // Allocation is measured only with EVALSTREAM_PROBE_ALLOCATIONS set (each run writes its own file).
    const alloc = e.allocKiB !== undefined && r.allocKiB !== undefined ? `; allocated ${e.allocKiB} vs ${r.allocKiB} KiB per event` : ''
    console.log(
      `side by side: server CPU ${e.cpuUs ?? 'n/a'} vs ${r.cpuUs ?? 'n/a'} us per event = ${cpuRatio} the ${name}'s${alloc}`,
    )
  }
  return Math.max(...Object.values(figures).map((f) => f.code))
}
if (values.db !== 'sqlite' && values.db !== 'memory') throw new Error(`--db is sqlite or memory, not '${values.db}'`)
const SESSIONS = Number(values.sessions)
const INVOCATIONS = Math.max(1, Math.floor(Number(values.events) / 4))
const SUBSCRIBERS = Number(values.subscribers)
const WARMUP = Number(values.warmup)
if (!(Number.isInteger(WARMUP) && WARMUP >= 0)) throw new Error(`--warmup is a number of sessions (0: none), not '${values.warmup}'`)
const MAX_MS = Number(values['max-seconds']) * 1000
/**
 * Events per second offered in all, or 0 to send as fast as answers come back (closed loop). With a
 * rate, session n starts at n / SESSIONS of one interval and sends its k-th invocation k intervals
 * later (an interval is the time for every session to send one invocation at that rate), or as
 * soon as its previous upload was answered if that is later; latency counts from the scheduled
 * time, so a server that falls behind is charged for the wait it caused.
 */
const RATE = Number(values.rate)
if (!(RATE >= 0)) throw new Error(`--rate is events per second (0: as fast as answered), not '${values.rate}'`)
const INTERVAL_MS = RATE > 0 ? (SESSIONS * 4 * 1000) / RATE : 0
/** Every session's create body but its id (made once: the eval case is tens of KB). */
const createBody = JSON.stringify({ eval_config: CONFIG, eval_case: loadCase(INVOCATIONS) })
/** Each invocation's upload, the same for every session (made once). */
const uploads = Array.from({ length: INVOCATIONS }, (_, k) => invocationBody(k))

const port = await freePort()
const base = `http://127.0.0.1:${port}`
const work = mkdtempSync(join(tmpdir(), 'evalstream-load-'))
const probeOut = join(work, 'probe.json')
const root = resolve(values.root)
// The server's Node flags are those `npm start` gives it (the root's package.json); then
// EVALSTREAM_LOAD_NODE_ARGS: extra node flags for the server only (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
const nodeArgs = [...startFlags(root), ...(process.env.EVALSTREAM_LOAD_NODE_ARGS ?? '').split(' ').filter(Boolean)]
// `--runtime deno`: the service under Deno (its server as `deno run` starts it), without the probe
// (a Node module): the figures read from inside the server print n/a. EVALSTREAM_LOAD_DENO_ARGS:
// extra `deno run` flags (e.g. --cpu-prof-dir=/tmp/prof).
const onDeno = values.runtime === 'deno' && values.server === 'evalstream'
const server = spawn(
  onDeno ? join(root, 'node_modules/.bin/deno') : process.execPath,
  onDeno
    ? [
      'run',
      '--allow-net',
      '--allow-env',
      '--allow-read',
      `--allow-write=${work}`,
      ...(process.env.EVALSTREAM_LOAD_DENO_ARGS ?? '').split(' ').filter(Boolean),
      join(root, 'src/adapter/deno/server.ts'),
    ]
    : [
      ...nodeArgs,
      '--import',
      resolve('bench/server-probe.ts'),
      values.server === 'evalstream' ? join(root, 'src/adapter/node/server.ts') : resolve('bench/load-replay.ts'),
    ],
  {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      GEMINI_API_KEY: '',
      GOOGLE_API_KEY: '',
      GOOGLE_CLOUD_PROJECT: '',
      EVALSTREAM_DB: values.db === 'memory' ? ':memory:' : join(work, 'evalstream.db'),
      EVALSTREAM_PROBE_OUT: probeOut,
      EVALSTREAM_REPLAY_INVOCATIONS: String(INVOCATIONS),
      ...(values.server === 'stored' ? { EVALSTREAM_REPLAY_STORE: join(work, 'replay.db') } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
)
// Stopped from outside (Ctrl-C, a timeout): no server and no temp dir left behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.kill('SIGKILL')
    rmSync(work, { recursive: true, force: true })
    process.exit(130)
  })
}
await new Promise<void>((resolve, reject) => {
  server.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve())
  server.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
})
const idleRss = rssMiB(server.pid!)?.peak ?? null

let stoppedEarly = false
const deadline = setTimeout(() => {
  stoppedEarly = true
  abortAll()
}, MAX_MS)
const latencies: number[] = []
/**
 * The same, without each session's first and last invocation: the first comes with the burst of
 * creates and subscriptions (and a cold server), the last with every session's end, which builds
 * and sends its case result. What a session in the middle of its life sees.
 */
const steadyLatencies: number[] = []
/** Per verdict: queue (sent -> handler), server (handler -> response at client), delivery (response -> verdict). */
const split = { queue: [] as number[], server: [] as number[], delivery: [] as number[] }
const queueSamples: number[] = []
const sampler = setInterval(() => {
  const q = acceptQueue(port)
  if (q !== null) queueSamples.push(q)
  // Reading /proc/net/tcp with a few thousand sockets open takes a few ms: every 100 ms it was 6% of the client.
}, 1000)
const epochMs = () => performance.timeOrigin + performance.now()
const totals = { lost: 0, duplicates: 0, received: 0, expected: 0, unfinished: 0, missingVerdicts: 0, failedRequests: 0, refusedCreates: 0 }

/** When an invocation's POST was sent, reached the handler, and its response came back (epoch ms). */
type Sent = { sent: number; handled?: number; answered?: number; verdict?: number }

/**
 * Opens one session's result stream; resolves once the response headers are in (the server
 * subscribes before it answers), with the promise of everything the stream will carry.
 */
async function subscribe(id: string, sentAt: Map<number, Sent>): Promise<{ rest: Promise<ReceivedStream> }> {
  const res = await openStream(base, `/v1/sessions/${id}/results`)
  return { rest: follow(res, sentAt) }
}

/** Reads a result stream to its end, timing the verdicts of this session's invocations. */
async function follow(res: { status: number; body: AsyncIterable<string> }, sentAt: Map<number, Sent>): Promise<ReceivedStream> {
  if (res.status !== 200) totals.failedRequests++
  return readResultStream(res.body, (verdict) => {
    const sent = sentAt.get(verdict.invocation_index)
    if (verdict.metric_name !== METRIC || sent === undefined) return
    const at = epochMs()
    latencies.push(at - sent.sent)
    if (verdict.invocation_index > 0 && verdict.invocation_index < INVOCATIONS - 1) steadyLatencies.push(at - sent.sent)
    // The split is taken once the session is done (the verdict usually comes before the POST's response).
    sent.verdict ??= at
  })
}

const failures = new Map<string, number>()
async function post(path: string, body: string, type = 'application/json', timing?: Sent): Promise<Answer> {
  const res = await call(base, 'POST', path, { body, type })
  if (timing) {
    timing.answered = epochMs()
    const handled = Number(res.headers['x-probe-received-at'])
    if (handled > 0) timing.handled = handled
  }
  if (res.status < 200 || res.status > 299) {
    totals.failedRequests++
    const what = `${res.status} on POST ${path.replace(/load-\d+/, '{id}')}`
    failures.set(what, (failures.get(what) ?? 0) + 1)
  }
  return res
}

/** Waits until this epoch time (ms); at once when it has passed. */
const until = (epoch: number) => new Promise((r) => setTimeout(r, Math.max(0, epoch - epochMs())))

/** Session n of the measured run (`load-n`), or of the warm-up (`warm-n`, closed loop whatever the rate). */
async function runSession(n: number, warmup = false): Promise<void> {
  const id = `${warmup ? 'warm' : 'load'}-${n}`
  const paced = RATE > 0 && !warmup
  const startAt = runStartEpoch + (n * INTERVAL_MS) / SESSIONS
  if (paced) await until(startAt)
  // A server at capacity answers 503 with Retry-After (admission): wait as told and ask again.
  for (;;) {
    const res = await call(base, 'POST', '/v1/sessions', {
      body: `{"session_id":${JSON.stringify(id)},${createBody.slice(1)}`,
    })
    if (res.status === 201) break
    const wait = Number(res.headers['retry-after'])
    if (res.status !== 503 || !(wait > 0)) {
      totals.failedRequests++
      failures.set(`${res.status} on POST /v1/sessions`, (failures.get(`${res.status} on POST /v1/sessions`) ?? 0) + 1)
      return
    }
    totals.refusedCreates++
    await new Promise((r) => setTimeout(r, wait * 1000))
  }
  const sentAt = new Map<number, Sent>()
  // Every subscriber is live before the first event, so latencies are not backlog replays.
  const subscribers = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => subscribe(id, sentAt)))
  for (let k = 0; k < INVOCATIONS; k++) {
    const scheduled = startAt + k * INTERVAL_MS
    if (paced) await until(scheduled)
    const timing: Sent = { sent: paced ? scheduled : epochMs() }
    sentAt.set(k, timing)
    await post(`/v1/sessions/${id}/events`, uploads[k]!, 'application/x-ndjson', timing)
  }
  await post(`/v1/sessions/${id}/end`, '')
  const received = await Promise.all(subscribers.map((s) => s.rest))
  for (const t of sentAt.values()) {
    if (t.handled === undefined || t.answered === undefined || t.verdict === undefined) continue
    split.queue.push(t.handled - t.sent)
    split.server.push(Math.min(t.answered, t.verdict) - t.handled)
    split.delivery.push(Math.max(0, t.verdict - t.answered))
  }
  const snap = JSON.parse((await call(base, 'GET', `/v1/sessions/${id}`)).text) as { last_seq: number }
  countStreams(totals, received, snap.last_seq, INVOCATIONS)
}

let runStartEpoch = epochMs()
if (WARMUP > 0) {
  const warm = await Promise.allSettled(Array.from({ length: WARMUP }, (_, n) => runSession(n, true)))
  const broken = warm.find((o) => o.status === 'rejected') as PromiseRejectedResult | undefined
  if (broken) throw new Error(`a warm-up session failed: ${broken.reason}`)
  if (totals.lost + totals.duplicates + totals.unfinished + totals.missingVerdicts + totals.failedRequests > 0) {
    throw new Error(`the warm-up went wrong: ${JSON.stringify(totals)}`)
  }
  // What the measured run reports starts here; failures (none, checked above) stay.
  for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] = 0
  for (const samples of [latencies, steadyLatencies, split.queue, split.server, split.delivery, queueSamples]) samples.length = 0
}
const cpuAtStart = cpuSeconds(server.pid!)
const threadsAtStart = threadCpuSeconds(server.pid!)
const clientCpuAtStart = process.cpuUsage()
const started = performance.now()
runStartEpoch = epochMs()
const outcomes = await Promise.allSettled(Array.from({ length: SESSIONS }, (_, n) => runSession(n)))
const elapsed = (performance.now() - started) / 1000
clearTimeout(deadline)
clearInterval(sampler)
const peak = rssMiB(server.pid!)?.peak ?? null
const cpuAtEnd = cpuSeconds(server.pid!)
const threadsAtEnd = threadCpuSeconds(server.pid!)
const clientCpu = process.cpuUsage(clientCpuAtStart)
// One more loop-delay report covers the end of the run.
await new Promise((resolve) => setTimeout(resolve, 300))
server.kill('SIGTERM')
await new Promise((r) => server.once('exit', r))
type GcPauses = { count: number; totalMs: number; maxMs: number }
let probe:
  | {
    loopDelayMs: { p50: number; p99: number; max: number }
    connections: number
    requests: number
    peakHeapUsedMiB?: number
    peakHeapTotalMiB?: number
    peakExternalMiB?: number
    peakArrayBuffersMiB?: number
    gc?: { minor: GcPauses; major: GcPauses }
    workerPeaks?: Array<{ usedMiB: number; totalMiB: number }>
  }
  | undefined
try {
  probe = JSON.parse(readFileSync(probeOut, 'utf8'))
} catch {
  // The server wrote no probe line (it died first): reported as n/a below.
}
rmSync(work, { recursive: true, force: true })

// With EVALSTREAM_PROBE_ALLOCATIONS=FILE the server wrote a sampling heap profile of the whole run.
const allocationsFile = process.env.EVALSTREAM_PROBE_ALLOCATIONS
const allocations = allocationsFile
  ? (() => {
    try {
      return allocationsOf(allocationsFile, 12)
    } catch {
      return undefined
    }
  })()
  : undefined

const SERVER_LABELS: Record<string, string> = {
  evalstream: 'evalstream',
  replay: 'replay baseline: nothing scored or stored',
  stored: 'storing replay baseline: nothing scored; spec, events and frames stored',
}
const failed = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[]
const sorted = latencies.sort((a, b) => a - b)
const pctOf = (xs: number[], p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!.toFixed(1) : 'n/a')
const pct = (p: number) => pctOf(sorted, p)
const p50p99 = (xs: number[]) => {
  xs.sort((a, b) => a - b)
  return `p50 ${pctOf(xs, 50)} / p99 ${pctOf(xs, 99)} ms`
}
const meanQueue = queueSamples.length ? queueSamples.reduce((a, b) => a + b, 0) / queueSamples.length : 0
const acceptRate = probe ? probe.connections / elapsed : 0
console.log(
  `load (${SERVER_LABELS[values.server]}): ${SESSIONS} sessions x ${
    INVOCATIONS * 4
  } events (${INVOCATIONS} invocations), ${SUBSCRIBERS} subscribers each, ${elapsed.toFixed(1)} s; ${
    RATE > 0 ? `offered ${RATE} events/s (each session an invocation every ${(INTERVAL_MS / 1000).toFixed(2)} s)` : 'closed loop'
  }${WARMUP > 0 ? `; after ${WARMUP} warm-up sessions, not measured` : ''}`,
)
console.log(onDeno ? '  server runtime: deno' : `  server node flags: ${nodeArgs.join(' ') || 'none'}`)
console.log(
  `  events posted/s: ${
    ((SESSIONS * INVOCATIONS * 4) / elapsed).toFixed(0)
  }; results delivered: ${totals.received} of ${totals.expected} expected`,
)
console.log(
  `  lost results: ${totals.lost}; duplicate results: ${totals.duplicates}; streams without case.result: ${totals.unfinished}; missing verdicts: ${totals.missingVerdicts}`,
)
if (cpuAtStart !== null && cpuAtEnd !== null) {
  const cpu = cpuAtEnd - cpuAtStart
  console.log(
    `  server CPU (all threads): ${cpu.toFixed(1)} s, ${((cpu * 1e6) / (SESSIONS * INVOCATIONS * 4)).toFixed(0)} us per event posted`,
  )
}
if (threadsAtStart && threadsAtEnd) {
  // Which threads the CPU went to: the event loop, each writer thread, the collector's helpers.
  const perEvent = (s: number) => ((s * 1e6) / (SESSIONS * INVOCATIONS * 4)).toFixed(0)
  const parts = [...threadsAtEnd].map(([kind, s]) => [kind, s - (threadsAtStart.get(kind) ?? 0)] as const)
    .filter(([, s]) => s >= 0.05).sort((a, b) => b[1] - a[1])
  console.log(`  server CPU by thread: ${parts.map(([kind, s]) => `${kind} ${s.toFixed(1)} s (${perEvent(s)} us/event)`).join(', ')}`)
}
// The client shares the machine's cores with the server: what it takes is not the server's.
if (allocations) {
  const events = (WARMUP + SESSIONS) * INVOCATIONS * 4
  console.log(
    `  server allocation (sampled, main thread, the whole run): ${(allocations.totalBytes / 2 ** 20).toFixed(0)} MiB, ${
      (allocations.totalBytes / events / 1024).toFixed(1)
    } KiB per event posted; most by:`,
  )
  for (const { where, bytes } of allocations.top) {
    console.log(`    ${(bytes / events / 1024).toFixed(2).padStart(6)} KiB/event  ${where}`)
  }
}
const clientSeconds = (clientCpu.user + clientCpu.system) / 1e6
console.log(
  `  load client CPU (this process): ${clientSeconds.toFixed(1)} s, ${
    ((clientSeconds * 1e6) / (SESSIONS * INVOCATIONS * 4)).toFixed(0)
  } us per event posted`,
)
console.log(`  verdict latency (${METRIC}, ${sorted.length} samples): p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms`)
steadyLatencies.sort((a, b) => a - b)
console.log(
  `  verdict latency without each session's first and last invocation (${steadyLatencies.length} samples): p50 ${
    pctOf(steadyLatencies, 50)
  } ms, p99 ${pctOf(steadyLatencies, 99)} ms, max ${pctOf(steadyLatencies, 100)} ms`,
)
console.log(`  verdict latency split: queue ${p50p99(split.queue)}; server ${p50p99(split.server)}; delivery ${p50p99(split.delivery)}`)
console.log(
  `  server event-loop delay: ${
    probe ? `p50 ${probe.loopDelayMs.p50} ms, p99 ${probe.loopDelayMs.p99} ms, max ${probe.loopDelayMs.max} ms` : 'n/a (no probe output)'
  }`,
)
if (probe?.gc) {
  const pauses = (what: string, g: GcPauses) => `${g.count} ${what} (${g.totalMs} ms in all, longest ${g.maxMs} ms)`
  console.log(
    `  server GC on the main thread: ${pauses('minor', probe.gc.minor)}, ${
      pauses('major', probe.gc.major)
    }; peak heap used ${probe.peakHeapUsedMiB} MiB (of ${probe.peakHeapTotalMiB} MiB reserved), peak external ${probe.peakExternalMiB} MiB (array buffers ${probe.peakArrayBuffersMiB} MiB)`,
  )
}
if (probe?.workerPeaks) {
  const peaks = probe.workerPeaks.map((w) => `${w.usedMiB} MiB used (of ${w.totalMiB} reserved)`)
  console.log(`  server worker threads' peak heaps, in the order they started: ${peaks.join('; ') || 'none'}`)
}
console.log(
  `  accept queue: max ${queueSamples.length ? Math.max(...queueSamples) : 'n/a'}, mean ${meanQueue.toFixed(1)} connections; ` +
    `${probe?.connections ?? 'n/a'} accepted (${acceptRate.toFixed(0)}/s), mean wait ~${
      acceptRate > 0 ? ((1000 * meanQueue) / acceptRate).toFixed(0) : 'n/a'
    } ms (Little's law)`,
)
console.log(
  `  server RSS: ${idleRss?.toFixed(0)} MiB at start, peak ${
    peak?.toFixed(0)
  } MiB; failed requests: ${totals.failedRequests}; failed sessions: ${failed.length}`,
)
console.log(`  creates answered 503 + Retry-After (admission) and retried: ${totals.refusedCreates}`)
for (const [what, n] of failures) console.log(`  failed: ${n} x ${what}`)
if (failed.length > 0) {
  const reason = failed[0]!.reason as Error & { cause?: unknown }
  console.log(
    `  first failure: ${String(reason)}${reason?.cause ? ` (cause: ${String((reason.cause as Error).message ?? reason.cause)})` : ''}`,
  )
}
if (stoppedEarly) console.log(`  stopped after --max-seconds ${MAX_MS / 1000}: requests in flight then were cut`)
const bad = totals.lost + totals.duplicates + totals.unfinished + totals.missingVerdicts + totals.failedRequests + failed.length
process.exit(bad > 0 ? 1 : 0)

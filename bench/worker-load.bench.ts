/**
 * The Worker under load, side by side with the Node server on the same load in the same run:
 * workerd through Miniflare with the bundled Worker (worker/index.ts, esbuild as the tests build it)
 * and its Durable Objects as wrangler.toml declares them (a SQLite session object per session, the
 * results index object), on Miniflare's HTTP port; then `src/adapter/node/server.ts` (`npm start`,
 * a child process, on a fresh SQLite file). Both get S sessions x E events with 1 subscriber each,
 * all sessions concurrently (bench/load-client.ts): events/s, verdict latency p50/p99 (the POST
 * carrying the final answer -> tool_trajectory_avg_score's criterion.result at the subscriber),
 * lost / duplicate results (must be 0) and the serving process's peak RSS (VmHWM of workerd, of
 * the Node server).
 *
 * Each target is stopped after --max-seconds; temp dirs (bundle, object storage, database) are
 * removed. Exits 1 on any lost, duplicate or missing result, failed request or session, or timeout.
 *
 *   npx node bench/worker-load.bench.ts [--sessions 100] [--events 200] [--subscribers 1]
 *     [--max-seconds 180] [--targets worker,node]
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { Miniflare } from 'miniflare'
import { bundleWorker, servingBundle } from '../test/support/worker-build.ts'
import { badCount, type LoadOutcome, percentile, runLoad } from './load-client.ts'
import { rssMiB } from './proc-stats.ts'
import { startFlags } from './server-flags.ts'

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '100' },
    events: { type: 'string', default: '200' },
    subscribers: { type: 'string', default: '1' },
    'max-seconds': { type: 'string', default: '180' },
    targets: { type: 'string', default: 'worker,node' },
  },
})
const SESSIONS = Number(values.sessions)
const INVOCATIONS = Math.max(1, Math.floor(Number(values.events) / 4))
const SUBSCRIBERS = Number(values.subscribers)
const MAX_MS = Number(values['max-seconds']) * 1000
const NO_JUDGE = { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '', GOOGLE_CLOUD_LOCATION: '' }

/** The workerd process Miniflare started: a descendant of this process named workerd. */
function workerdPid(): number | undefined {
  const parent = new Map<number, number>()
  const name = new Map<number, string>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      name.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close))
      parent.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]))
    } catch {
      // The process ended while being listed.
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 10; p = parent.get(p) ?? 0, hops++) if (p === process.pid) return true
    return false
  }
  return [...name].find(([pid, comm]) => comm.startsWith('workerd') && mine(pid))?.[0]
}

type Target = { base: string; pid: number | undefined; stop(): Promise<void> }
const cleanups: Array<() => void> = []

async function startWorkerd(): Promise<Target> {
  const scriptPath = await bundleWorker()
  const storage = mkdtempSync(join(tmpdir(), 'evalstream-worker-load-'))
  cleanups.push(
    () => rmSync(dirname(scriptPath), { recursive: true, force: true }),
    () => rmSync(storage, { recursive: true, force: true }),
  )
  // Miniflare keeps its cache and workflow folders under the temp dir it finds when it starts:
  // one of this run's own, removed with the rest.
  const scratch = mkdtempSync(join(tmpdir(), 'evalstream-worker-load-scratch-'))
  cleanups.push(() => rmSync(scratch, { recursive: true, force: true }))
  const tmp = process.env.TMPDIR
  process.env.TMPDIR = scratch
  const mf = new Miniflare({
    ...servingBundle(scriptPath),
    // As wrangler.toml deploys it: a SQLite object per session and the results index object.
    durableObjects: { SESSIONS: { className: 'EvalSession', useSQLite: true }, INDEX: { className: 'EvalIndex', useSQLite: true } },
    durableObjectsPersist: storage,
    bindings: NO_JUDGE,
  })
  const url = await mf.ready
  if (tmp === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = tmp
  return { base: url.origin, pid: workerdPid(), stop: () => mf.dispose() }
}

async function startNode(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'evalstream-worker-load-node-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const server = spawn(process.execPath, [...startFlags('.'), 'src/adapter/node/server.ts'], {
    env: { ...process.env, ...NO_JUDGE, PORT: '0', EVALSTREAM_DB: join(dir, 'evalstream.db') },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  cleanups.push(() => server.kill('SIGKILL'))
  const base = await new Promise<string>((resolve, reject) => {
    let out = ''
    server.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const port = /listening on \S*?:(\d+)/.exec(out)?.[1]
      if (port) resolve(`http://127.0.0.1:${port}`)
    })
    server.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)))
  })
  return {
    base,
    pid: server.pid,
    stop: async () => {
      server.kill('SIGTERM')
      if (server.exitCode === null) await new Promise((r) => server.once('exit', r))
    },
  }
}

// Whatever ends the run early, no server or temp dir is left behind.
process.once('exit', () => {
  for (const c of cleanups) c()
})
// Stopped from outside: no server, workerd or temp dir left behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const c of cleanups) c()
    process.exit(130)
  })
}

type Row = { name: string; outcome?: LoadOutcome; idle?: number; peak?: number; error?: string }
const rows: Row[] = []
console.log(
  `load: ${SESSIONS} sessions x ${INVOCATIONS * 4} events (${INVOCATIONS} invocations), ${SUBSCRIBERS} subscriber(s) each; ` +
    `load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
)
for (const name of values.targets.split(',')) {
  const target = name === 'worker' ? await startWorkerd() : await startNode()
  const idle = target.pid ? rssMiB(target.pid)?.now : undefined
  const stop = new AbortController()
  const deadline = setTimeout(() => stop.abort(new Error(`stopped after --max-seconds ${MAX_MS / 1000}`)), MAX_MS)
  try {
    const outcome = await runLoad(target.base, {
      sessions: SESSIONS,
      invocations: INVOCATIONS,
      subscribers: SUBSCRIBERS,
      signal: stop.signal,
    })
    rows.push({
      name,
      outcome,
      idle,
      peak: target.pid ? rssMiB(target.pid)?.peak : undefined,
      ...(stop.signal.aborted ? { error: 'timed out' } : {}),
    })
  } catch (error) {
    rows.push({ name, error: String(error) })
  } finally {
    clearTimeout(deadline)
    await target.stop()
    for (const c of cleanups.splice(0)) c()
  }
}
console.log(`load average at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)

let bad = 0
const mib = (n?: number) => (n === undefined || Number.isNaN(n) ? 'n/a' : `${n.toFixed(0)} MiB`)
console.log('target  | events/s | verdict p50 / p99 / max ms | lost | dup | missing | failed req | RSS idle -> peak | creates retried')
for (const r of rows) {
  const o = r.outcome
  if (!o) {
    bad++
    console.log(`${r.name.padEnd(7)} | failed: ${r.error}`)
    continue
  }
  bad += badCount(o) + (r.error ? 1 : 0)
  const l = o.latenciesMs
  console.log(
    `${r.name.padEnd(7)} | ${o.eventsPerSecond.toFixed(0).padStart(8)} | ${percentile(l, 50)} / ${percentile(l, 99)} / ${
      percentile(l, 100)
    } | ${o.lost} | ${o.duplicates} | ${o.missingVerdicts + o.unfinished} | ${o.failedRequests + o.failedSessions} | ${mib(r.idle)} -> ${
      mib(r.peak)
    } | ${o.refusedCreates}` +
      ` (${o.seconds.toFixed(1)} s; ${o.received} of ${o.expected} results)${r.error ? ` ${r.error}` : ''}`,
  )
  for (const f of o.failures) console.log(`  failed: ${f}`)
}
process.exit(bad > 0 ? 1 : 0)

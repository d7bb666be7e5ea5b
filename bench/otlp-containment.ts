/**
 * One hostile OTLP exporter against a good one, on loopback, bounded in count and time: the Node
 * server (`npm start`'s flags, in-memory SQLite) with tokens for two tenants; tenant `globex` runs
 * one attack while tenant `acme` exports its agent's traces (the ADK JS fixture's two turns, fresh
 * ids each time, every 250 ms) and a prober asks `GET /healthz` every 100 ms. Each case runs on a
 * fresh server:
 *
 * - flood: 2 requests of 5,000 root-less traces with no conversation id, each a model call with a
 *   user message and an answer (scoreable, so each would open a session of its own);
 * - slow: 34 uploads dripping one byte a second for 15 s (more than the 32 decode slots);
 * - bomb: 40 concurrent gzip bodies that inflate to 256 MiB each.
 *
 * Reported per case: /healthz latency (p50, p99, max), the good exporter's requests answered 200
 * without a partial success (of how many), the server's peak RSS (VmHWM) and its longest event-loop
 * delay, longest garbage-collection pause, longest loop iteration in the server thread's CPU time
 * (with the collection pauses inside it) and that thread's CPU time in all (with the collection
 * pauses' total; bench/server-probe.ts), and what the attacker's requests were answered.
 *
 *   npx node bench/otlp-containment.ts [--case flood|slow|bomb|all] [--root DIR (another checkout's server, for before/after)]
 *     [--open (no tokens: one namespace for both exporters)] [--keep-probe (the probe's last line to stderr)]
 *     [--cpu-prof DIR (the server's CPU profile, 200 µs samples, into DIR; read it with bench/turn-anatomy.ts)]
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { freePort, rssMiB } from './proc-stats.ts'
import { startFlags } from './server-flags.ts'
import { llmSpanFlood } from '../test/support/llm-span-flood.ts'

const { values } = parseArgs({
  options: {
    case: { type: 'string', default: 'all' },
    root: { type: 'string', default: '.' },
    open: { type: 'boolean', default: false },
    'keep-probe': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
})
const CASES = values.case === 'all' ? ['flood', 'slow', 'bomb'] : [values.case!]
const root = resolve(values.root!)
const TOKENS = { acme: 'acme-bench-token-0123456789abcdef012345', globex: 'globex-bench-token-0123456789abcdef0123' }
const FIXTURE = readFileSync(resolve('test/fixtures/otlp/adk-js.jsonl'), 'utf8').split('\n').filter(Boolean)

type Sample = { ms: number; ok: boolean; status: number }
const pct = (
  xs: number[],
  p: number,
) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function startServer() {
  const port = await freePort()
  const work = mkdtempSync(join(tmpdir(), 'evalstream-otlp-containment-'))
  const probeOut = join(work, 'probe.json')
  const child = spawn(process.execPath, [
    ...startFlags(root),
    ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(values['cpu-prof'])}`, '--cpu-prof-interval=200'] : []),
    '--import',
    resolve('bench/server-probe.ts'),
    join(root, 'src/adapter/node/server.ts'),
  ], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      GEMINI_API_KEY: '',
      GOOGLE_API_KEY: '',
      GOOGLE_CLOUD_PROJECT: '',
      EVALSTREAM_DB: ':memory:',
      EVALSTREAM_TOKENS: values.open ? '' : `acme:${TOKENS.acme},globex:${TOKENS.globex}`,
      EVALSTREAM_PROBE_OUT: probeOut,
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  await new Promise<void>((ok, fail) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && ok())
    child.once('exit', (code) => fail(new Error(`server exited with ${code}`)))
  })
  const stop = async () => {
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await Promise.race([exited, sleep(5_000)])
    child.kill('SIGKILL')
    let loopMaxMs = NaN
    let gcMaxMs = NaN
    let turn = { cpuMs: NaN, gcMs: NaN }
    let threadCpuMs = NaN
    let gcTotalMs = NaN
    try {
      const lines = readFileSync(probeOut, 'utf8').trim().split('\n')
      const probe = JSON.parse(lines.at(-1)!)
      loopMaxMs = probe.loopDelayMs.max
      gcMaxMs = Math.max(probe.gc.minor.maxMs, probe.gc.major.maxMs)
      turn = probe.longestTurns?.[0] ?? turn
      threadCpuMs = probe.threadCpuMs ?? NaN
      gcTotalMs = probe.gc.minor.totalMs + probe.gc.major.totalMs
      if (values['keep-probe']) console.error(`probe: ${JSON.stringify(probe)}`)
    } catch {
      // No probe line: reported as n/a.
    }
    rmSync(work, { recursive: true, force: true })
    return { loopMaxMs, gcMaxMs, turn, threadCpuMs, gcTotalMs }
  }
  process.once('SIGINT', () => (child.kill('SIGKILL'), rmSync(work, { recursive: true, force: true }), process.exit(130)))
  return { base: `http://127.0.0.1:${port}`, port, pid: child.pid!, stop }
}

const headers = (tenant: keyof typeof TOKENS, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  ...(values.open ? {} : { authorization: `Bearer ${TOKENS[tenant]}` }),
  ...extra,
})

/** The good exporter: one conversation (4 requests) after another until `stop`; each answer 200 `{}` is a success. */
async function goodExporter(base: string, stop: AbortSignal): Promise<Sample[]> {
  const out: Sample[] = []
  for (let n = 1; !stop.aborted; n++) {
    const hex = n.toString(16).padStart(8, '0')
    for (const line of FIXTURE) {
      const body = line.replaceAll('"traceId":"00000001', `"traceId":"${hex}`).replaceAll('session-js', `good-${n}`)
      const t = performance.now()
      try {
        const res = await fetch(`${base}/v1/traces`, {
          method: 'POST',
          body,
          headers: headers('acme'),
          signal: AbortSignal.timeout(10_000),
        })
        out.push({ ms: performance.now() - t, ok: res.status === 200 && (await res.text()) === '{}', status: res.status })
      } catch {
        out.push({ ms: performance.now() - t, ok: false, status: 0 })
      }
    }
    await sleep(250)
  }
  return out
}

async function prober(base: string, stop: AbortSignal): Promise<number[]> {
  const out: number[] = []
  while (!stop.aborted) {
    const t = performance.now()
    try {
      await (await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(60_000) })).text()
    } catch {
      // Counted by its time anyway.
    }
    out.push(performance.now() - t)
    await sleep(100)
  }
  return out
}

/** 5,000 root-less traces, no conversation id, each a call_llm span with a user message and an answer. */
const floodBody = (request: number) => llmSpanFlood(5_000, { firstTraceId: request * 1_000_000 + 1, rootless: true })

/** One upload sending a byte a second for `seconds`; resolves with its status (0: cut off). */
function drip(port: number, seconds: number): Promise<number> {
  return new Promise((done) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/traces', method: 'POST', headers: headers('globex') }, (res) => {
      res.resume()
      done(res.statusCode ?? 0)
    })
    req.on('error', () => done(0))
    let sent = 0
    const timer = setInterval(() => {
      if (sent++ >= seconds || req.destroyed) {
        clearInterval(timer)
        if (!req.destroyed) req.end()
        return
      }
      req.write(' ')
    }, 1_000)
    req.write('{')
  })
}

async function attack(name: string, base: string, port: number): Promise<string> {
  const count = (statuses: number[]) => {
    const by = new Map<number, number>()
    for (const s of statuses) by.set(s, (by.get(s) ?? 0) + 1)
    return [...by].map(([s, n]) => `${n}x ${s || 'cut'}`).join(', ')
  }
  if (name === 'flood') {
    const answers = await Promise.all([1, 2].map(async (n) => {
      const res = await fetch(`${base}/v1/traces`, {
        method: 'POST',
        body: floodBody(n),
        headers: headers('globex'),
        signal: AbortSignal.timeout(600_000),
      })
      const text = await res.text()
      return `${res.status}${text.includes('partialSuccess') ? ' partial' : ''}`
    }))
    return answers.join(', ')
  }
  if (name === 'slow') return count(await Promise.all(Array.from({ length: 34 }, () => drip(port, 15))))
  const statuses = await Promise.all(Array.from({ length: 40 }, async () => {
    try {
      const res = await fetch(`${base}/v1/traces`, {
        method: 'POST',
        body: bomb,
        headers: headers('globex', { 'content-encoding': 'gzip' }),
        signal: AbortSignal.timeout(120_000),
      })
      await res.text()
      return res.status
    } catch {
      return 0
    }
  }))
  return count(statuses)
}

/** The good exporter's failures by status, when there are any. */
function failed(samples: Sample[]): string {
  const by = new Map<number, number>()
  for (const s of samples) if (!s.ok) by.set(s.status, (by.get(s.status) ?? 0) + 1)
  return by.size === 0 ? '' : ` (${[...by].map(([s, n]) => `${n}x ${s === 200 ? '200 partial' : s || 'no answer'}`).join(', ')})`
}

// Made before any server starts: gzipping 256 MiB takes this process seconds, which the /healthz prober would count.
const bomb = CASES.includes('bomb') ? gzipSync(Buffer.alloc(256 * 1024 * 1024, ' '), { level: 9 }) : Buffer.alloc(0)

console.log(`server: ${root}${values.open ? ' (open mode)' : ' (tokens, two tenants)'}`)
console.log(
  '| case | /healthz p50 / p99 / max (ms) | good exporter: 200 {} of requests | peak RSS (MiB) | longest loop delay (ms) | longest GC pause (ms) | longest iteration, thread CPU (ms; GC in it) | server thread CPU (s; GC pauses) | attacker answered | seconds |',
)
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for (const name of CASES) {
  const server = await startServer()
  const stop = new AbortController()
  const t = performance.now()
  const probes = prober(server.base, stop.signal)
  const good = goodExporter(server.base, stop.signal)
  await sleep(1_000)
  const answered = await attack(name, server.base, server.port)
  // The attack is over: a few more seconds of the good exporter, then stop.
  await sleep(2_000)
  stop.abort()
  const [health, goods] = await Promise.all([probes, good])
  const rss = rssMiB(server.pid)?.peak ?? NaN
  const seconds = (performance.now() - t) / 1000
  const { loopMaxMs: loopMax, gcMaxMs: gcMax, turn, threadCpuMs, gcTotalMs } = await server.stop()
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a')
  console.log(
    `| ${name} | ${f(pct(health, 0.5))} / ${f(pct(health, 0.99))} / ${f(Math.max(...health))} | ${
      goods.filter((g) => g.ok).length
    } of ${goods.length}${failed(goods)} | ${f(rss)} | ${f(loopMax)} | ${f(gcMax)} | ${f(turn.cpuMs)} (${f(turn.gcMs)}) | ${
      (threadCpuMs / 1000).toFixed(1)
    } (${(gcTotalMs / 1000).toFixed(1)}) | ${answered} | ${seconds.toFixed(0)} |`,
  )
}

/**
 * The Worker's sharded paths under load, 1 shard against N, in the same run: workerd through
 * Miniflare with the bundled Worker and its Durable Objects as wrangler.toml declares them, once
 * with EVALSTREAM_OTLP_SHARDS = EVALSTREAM_INDEX_SHARDS = 1 and once with both N. Each gets the
 * same two loads, one after the other:
 *
 * - OTLP: C agents at once, each exporting T turns of one conversation as ADK JS does (a batch of
 *   a turn's child spans, then its root span), from the adk-js fixture with fresh trace, invocation
 *   and conversation ids. spans/s overall and for the busiest shard (which shard a trace goes to is
 *   computed here with the Worker's own hash); latency of the root span's POST, which is answered
 *   once its shard has delivered the completed trace and the session object has scored it (the
 *   verdict is logged before the answer); a 429 or a dropped connection is retried after 1 s, as an
 *   exporter does (counted); then every conversation's session must hold T completed invocations
 *   (lost: those that do not).
 * - Pushed events: S sessions x E events with 1 subscriber each (bench/load-client.ts, as
 *   bench/worker-load.bench.ts): events/s, verdict p50/p99, lost / duplicate results; each
 *   session's results go on to its index shard, so results/s per index shard is given too (mean).
 *
 * Then the Node server (`npm start`'s flags, a fresh SQLite file) gets the same two loads, for the
 * numbers beside them (`--no-node` skips it): "busiest shard" is then the one process.
 *
 * Local workerd runs every object on one thread, so N shards cannot be faster here than 1: what
 * this measures is what sharding costs on one core and that nothing is lost or doubled; a
 * deployment runs each object on its own (docs/limits.md, "Workers: objects per tenant").
 *
 *   npx node bench/worker-shards.bench.ts [--shards 8] [--agents 24] [--turns 4] [--sessions 50]
 *     [--events 100] [--max-seconds 300] [--no-node]
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { Miniflare } from 'miniflare'
import { bundleWorker, servingBundle } from '../test/support/worker-build.ts'
import { fixtureText } from '../test/unit/otlp/support/fixtures.ts'
import { OTLP_CONFIG } from '../test/unit/otlp/support/receiver-app.ts'
import { shardOf } from '../worker/shards.ts'
import { badCount, type LoadOutcome, percentile, runLoad } from './load-client.ts'
import { call } from './load-http.ts'
import { startFlags } from './server-flags.ts'

const { values } = parseArgs({
  options: {
    shards: { type: 'string', default: '8' },
    agents: { type: 'string', default: '24' },
    turns: { type: 'string', default: '4' },
    sessions: { type: 'string', default: '50' },
    events: { type: 'string', default: '100' },
    'max-seconds': { type: 'string', default: '300' },
    node: { type: 'boolean', default: true },
  },
})
const N = Number(values.shards)
const AGENTS = Number(values.agents)
const TURNS = Number(values.turns)
const SESSIONS = Number(values.sessions)
const INVOCATIONS = Math.max(1, Math.floor(Number(values.events) / 4))
const MAX_MS = Number(values['max-seconds']) * 1000
const NO_JUDGE = { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '', GOOGLE_CLOUD_LOCATION: '' }

// adk-js.jsonl: turn 1's child spans, its root; turn 2's child spans, its root.
const FIXTURE = fixtureText('adk-js.jsonl').split('\n').filter((l) => l.trim() !== '')
const FIXTURE_TRACES = ['000000016e2a96880000000000000001', '000000016e2a96880000000000000002']
const FIXTURE_INVOCATIONS = ['e-js-1', 'e-js-2']

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')
/** One turn of agent `a`'s conversation: its two requests, its trace id and how many spans it has. */
function turn(a: number, t: number): { children: string; root: string; traceId: string; spans: number } {
  const k = t % 2
  const traceId = `${hex(a + 1, 16)}${hex(t + 1, 16)}`
  const rewrite = (line: string) =>
    line.replaceAll(FIXTURE_TRACES[k]!, traceId).replaceAll(FIXTURE_INVOCATIONS[k]!, `e-${a}-${t}`).replaceAll('session-js', `agent-${a}`)
  const children = rewrite(FIXTURE[2 * k]!)
  const root = rewrite(FIXTURE[2 * k + 1]!)
  const count = (line: string) => (line.match(/"spanId"/g) ?? []).length
  return { children, root, traceId, spans: count(children) + count(root) }
}

type OtlpOutcome = {
  seconds: number
  spans: number
  busiestShardSpans: number
  rootMs: number[]
  lost: number
  retried: number
  failed: string[]
}
/** Attempts per export request, and the wait between them (the receiver's Retry-After). */
const MAX_ATTEMPTS = 5
const RETRY_AFTER_MS = 1000

async function otlpLoad(base: string, shards: number, signal: AbortSignal): Promise<OtlpOutcome> {
  const perShard = new Array<number>(shards).fill(0)
  const rootMs: number[] = []
  const failed: string[] = []
  let spans = 0
  let retried = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: AGENTS }, async (_, a) => {
      for (let t = 0; t < TURNS && !signal.aborted; t++) {
        const { children, root, traceId, spans: n } = turn(a, t)
        // As an exporter does: a 429 (or a dropped connection) is sent again after Retry-After.
        const post = async (body: string) => {
          for (let attempt = 1;; attempt++) {
            const answer = await call(base, 'POST', '/v1/traces', { body }).catch((e: Error) => ({ status: 0, text: e.message }))
            if ((answer.status !== 429 && answer.status !== 0) || attempt === MAX_ATTEMPTS || signal.aborted) return answer
            retried += 1
            await new Promise((r) => setTimeout(r, RETRY_AFTER_MS))
          }
        }
        const first = await post(children)
        const sent = performance.now()
        const last = await post(root)
        rootMs.push(performance.now() - sent)
        if (first.status !== 200 || last.status !== 200) {
          failed.push(`agent ${a} turn ${t}: ${first.status} ${first.text.slice(0, 200)} / ${last.status} ${last.text.slice(0, 200)}`)
        }
        spans += n
        perShard[shardOf(traceId, shards)]! += n
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  let lost = 0
  for (let a = 0; a < AGENTS; a++) {
    const answer = await call(base, 'GET', `/v1/sessions/otlp-agent-${a}`)
    const snapshot = answer.status === 200 ? JSON.parse(answer.text) : { invocations: [] }
    lost += TURNS - snapshot.invocations.filter((i: { completed: boolean }) => i.completed).length
  }
  return { seconds, spans, busiestShardSpans: Math.max(...perShard), rootMs: rootMs.sort((x, y) => x - y), lost, retried, failed }
}

const cleanups: Array<() => void> = []
process.once('exit', () => {
  for (const c of cleanups) c()
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const c of cleanups) c()
    process.exit(130)
  })
}

/** The Node server as `npm start` runs it, on a fresh SQLite file: the same loads, one process. */
async function startNode(): Promise<{ base: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'evalstream-worker-shards-node-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const server = spawn(process.execPath, [...startFlags('.'), 'src/adapter/node/server.ts'], {
    env: { ...process.env, ...NO_JUDGE, PORT: '0', EVALSTREAM_DB: join(dir, 'evalstream.db'), EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG },
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
    stop: async () => {
      server.kill('SIGTERM')
      if (server.exitCode === null) await new Promise((r) => server.once('exit', r))
    },
  }
}

async function startWorkerd(shards: number): Promise<{ base: string; stop(): Promise<void> }> {
  const scriptPath = await bundleWorker()
  const storage = mkdtempSync(join(tmpdir(), 'evalstream-worker-shards-'))
  // Miniflare keeps its cache folders under the temp dir it finds when it starts: one of this run's own.
  const scratch = mkdtempSync(join(tmpdir(), 'evalstream-worker-shards-scratch-'))
  cleanups.push(...[dirname(scriptPath), storage, scratch].map((dir) => () => rmSync(dir, { recursive: true, force: true })))
  const tmp = process.env.TMPDIR
  process.env.TMPDIR = scratch
  const mf = new Miniflare({
    ...servingBundle(scriptPath),
    durableObjects: {
      SESSIONS: { className: 'EvalSession', useSQLite: true },
      INDEX: { className: 'EvalIndex', useSQLite: true },
      OTLP: { className: 'OtlpShard', useSQLite: true },
    },
    durableObjectsPersist: storage,
    bindings: {
      ...NO_JUDGE,
      EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG,
      EVALSTREAM_OTLP_SHARDS: String(shards),
      EVALSTREAM_INDEX_SHARDS: String(shards),
    },
  })
  const url = await mf.ready
  if (tmp === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = tmp
  return { base: url.origin, stop: () => mf.dispose() }
}

/** A target: workerd with this many shards, or the Node server (0). */
type Row = { shards: number; otlp?: OtlpOutcome; pushed?: LoadOutcome; error?: string }
const rows: Row[] = []
console.log(
  `OTLP: ${AGENTS} agents x ${TURNS} turns; pushed: ${SESSIONS} sessions x ${INVOCATIONS * 4} events, 1 subscriber each; ` +
    `load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
)
for (const shards of [1, N, ...(values.node ? [0] : [])]) {
  const target = shards === 0 ? await startNode() : await startWorkerd(shards)
  const stop = new AbortController()
  const deadline = setTimeout(() => stop.abort(new Error(`stopped after --max-seconds ${MAX_MS / 1000}`)), MAX_MS)
  try {
    const otlp = await otlpLoad(target.base, Math.max(1, shards), stop.signal)
    const pushed = await runLoad(target.base, { sessions: SESSIONS, invocations: INVOCATIONS, subscribers: 1, signal: stop.signal })
    rows.push({ shards, otlp, pushed, ...(stop.signal.aborted ? { error: 'timed out' } : {}) })
  } catch (error) {
    rows.push({ shards, error: String(error) })
  } finally {
    clearTimeout(deadline)
    await target.stop()
    for (const c of cleanups.splice(0)) c()
  }
}
console.log(`load average at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)

let bad = 0
const label = (shards: number) => (shards === 0 ? 'Node' : String(shards)).padStart(6)
console.log(
  'shards | OTLP spans/s | busiest shard spans/s | root POST p50 / p99 ms | invocations lost | events/s | verdict p50 / p99 ms | results/s per index shard | lost / dup',
)
for (const r of rows) {
  const { otlp, pushed } = r
  if (!otlp || !pushed) {
    bad++
    console.log(`${label(r.shards)} | failed: ${r.error}`)
    continue
  }
  bad += badCount(pushed) + otlp.lost + otlp.failed.length + (r.error ? 1 : 0)
  const l = pushed.latenciesMs
  console.log(
    `${label(r.shards)} | ${(otlp.spans / otlp.seconds).toFixed(0).padStart(12)} | ${
      (otlp.busiestShardSpans / otlp.seconds).toFixed(0).padStart(21)
    } | ${percentile(otlp.rootMs, 50)} / ${percentile(otlp.rootMs, 99)} | ${otlp.lost} | ${pushed.eventsPerSecond.toFixed(0)} | ${
      percentile(l, 50)
    } / ${percentile(l, 99)} | ${
      (pushed.received / pushed.seconds / Math.max(1, r.shards)).toFixed(0)
    } | ${pushed.lost} / ${pushed.duplicates}` +
      ` (OTLP ${otlp.spans} spans in ${otlp.seconds.toFixed(1)} s, ${otlp.retried} requests retried; pushed ${
        pushed.seconds.toFixed(1)
      } s)${r.error ? ` ${r.error}` : ''}`,
  )
  for (const f of [...otlp.failed, ...pushed.failures].slice(0, 5)) console.log(`  failed: ${f}`)
}
process.exit(bad > 0 ? 1 : 0)

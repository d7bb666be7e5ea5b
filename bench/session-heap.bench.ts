/**
 * Heap per session on Node, in process: the Hono app built as the servers build it (depsFromEnv,
 * no judge) over (i) the memory store (`openSessionDb(':memory:')`, what EVALSTREAM_DB=:memory:
 * gives) and (ii) the SQLite store on a temp file (one connection on this thread with grouped
 * commits, as Deno runs it; `npm start` hands writes to a writer thread, whose heap is not this
 * isolate's). Each store and size runs in a fresh child process:
 *
 * - idle: N sessions created with the load bench's eval case and config (bench/load-case.ts), no events;
 * - live: then each fed K invocations (4 events each, one NDJSON upload per invocation, as the load bench);
 * - ended: then each ended (POST /end; the case result computed).
 *
 * After each step: heapUsed after three full GCs, minus the baseline before the first session,
 * divided by N; and the same for the process's RSS, which also counts what SQLite keeps outside
 * the heap (an in-memory database's pages, a file's page cache). Two sizes show whether the numbers are per session (linear) or fixed costs.
 * Every request's status is checked, and each session's result count at the end; exits 1 otherwise.
 *
 *   npx node --expose-gc bench/session-heap.bench.ts [--sizes 1000,2000] [--invocations 50]
 *     [--stores memory,sqlite] [--root DIR (another checkout, side by side)]
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { getHeapStatistics } from 'node:v8'
import { CONFIG, invocationBody, loadCase } from './load-case.ts'

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,2000' },
    invocations: { type: 'string', default: '50' },
    stores: { type: 'string', default: 'memory,sqlite' },
    root: { type: 'string' },
    child: { type: 'string' },
  },
})
const INVOCATIONS = Number(values.invocations)
const NO_JUDGE = { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '', GOOGLE_CLOUD_LOCATION: '' }
type Fetch = (request: Request) => Response | Promise<Response>
/** Heap and byte-budget charge per session after a step (KiB; the charge NaN when the tree does not report it), and its time. */
type Step = { heapKiB: number; rssKiB: number; chargedKiB: number; ms: number }
type Outcome = { idle: Step; live: Step; ended: Step; problems: string[] }

async function buildApp(
  root: string,
  store: string,
  dbPath: string,
  sessions: number,
): Promise<{ fetch: Fetch; charged(): number; close(): void }> {
  const { createApp } = await import(join(root, 'src/http/app.ts'))
  const { depsFromEnv } = await import(join(root, 'src/config/setup.ts'))
  const { openSessionDb } = await import(join(root, 'src/adapter/sqlite-db.ts'))
  // Older checkouts have no process byte budget: their stores take no default from the heap.
  const budget = await import(join(root, 'src/session/byte-budget.ts')).catch(() => undefined)
  const db = openSessionDb(store === 'sqlite' ? dbPath : ':memory:')
  // Room for every session of the run: the session cap (10,000 by default) would evict the first
  // ones at 50,000, and the process byte budget, which counts 64 KiB per open session, would refuse
  // new ones past about 16,000 on Node's default heap. This measures heap, not those limits.
  const room = { EVALSTREAM_MAX_SESSIONS: String(Math.max(10_000, sessions)), EVALSTREAM_MAX_PROCESS_BYTES: String(2 ** 40) }
  const setup = depsFromEnv({ ...NO_JUDGE, ...room }, {
    store: db.store,
    ...(db.judgeCache ? { judgeCache: db.judgeCache } : {}),
    ...(db.evalSets ? { evalSets: db.evalSets } : {}),
    // As the Node server: the process byte budget from this heap's limit.
    ...(budget ? { defaultProcessBytes: budget.processBytesDefault(getHeapStatistics().heap_size_limit) } : {}),
  })
  if (!setup.ok) throw new Error(setup.error)
  const app = createApp(setup.deps)
  // What the process byte budget is charged for the sessions held (older checkouts may not say).
  const charged = () => (setup.deps.store.stats?.().heldBytes as number | undefined) ?? Number.NaN
  return { fetch: app.fetch, charged, close: () => db.close() }
}

function settledHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with --expose-gc: npx node --expose-gc bench/session-heap.bench.ts')
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().heapUsed
}

const body = JSON.stringify({ eval_config: CONFIG, eval_case: loadCase(INVOCATIONS) })
const withId = (id: string) => `{"session_id":${JSON.stringify(id)},${body.slice(1)}`
const uploads = Array.from({ length: INVOCATIONS }, (_, k) => invocationBody(k))

async function call(fetch: Fetch, path: string, init: RequestInit, want: number, problems: string[]): Promise<Response> {
  const res = await fetch(new Request(`http://bench${path}`, init))
  if (res.status !== want && problems.length < 5) {
    problems.push(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.clone().text()}`)
  }
  return res
}

/** Runs the three steps over N sessions on one app, measuring after each. */
async function steps(fetch: Fetch, n: number, prefix: string, measure: boolean, charged = () => Number.NaN): Promise<Outcome> {
  const problems: string[] = []
  const base = measure ? settledHeap() : 0
  const baseRss = process.memoryUsage().rss
  const step = async (work: (i: number) => Promise<unknown>): Promise<Step> => {
    const t0 = performance.now()
    for (let i = 0; i < n; i++) await work(i)
    const ms = performance.now() - t0
    const heapKiB = measure ? (settledHeap() - base) / n / 1024 : 0
    return { heapKiB, rssKiB: (process.memoryUsage().rss - baseRss) / n / 1024, chargedKiB: charged() / n / 1024, ms }
  }
  const json = { 'content-type': 'application/json' }
  const idle = await step(async (i) => {
    const res = await call(fetch, '/v1/sessions', { method: 'POST', headers: json, body: withId(`${prefix}-${i}`) }, 201, problems)
    await res.arrayBuffer()
  })
  const live = await step(async (i) => {
    for (const upload of uploads) {
      const path = `/v1/sessions/${prefix}-${i}/events`
      const res = await call(
        fetch,
        path,
        { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: upload },
        202,
        problems,
      )
      const summary = (await res.json()) as { accepted?: number }
      if (summary.accepted !== 4 && problems.length < 5) problems.push(`${path}: ${JSON.stringify(summary)}`)
    }
  })
  const ended = await step(async (i) => {
    const res = await call(fetch, `/v1/sessions/${prefix}-${i}/end`, { method: 'POST' }, 200, problems)
    await res.arrayBuffer()
  })
  // Every session is still there with every invocation scored (2 configured criteria each, at least).
  for (const i of [0, n - 1]) {
    const res = await call(fetch, `/v1/sessions/${prefix}-${i}`, {}, 200, problems)
    const snap = (await res.json()) as { last_seq?: number }
    if (!((snap.last_seq ?? 0) >= INVOCATIONS * 2)) problems.push(`${prefix}-${i}: last_seq ${snap.last_seq}`)
  }
  return { idle, live, ended, problems }
}

async function child(root: string, store: string, n: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'evalstream-heap-'))
  // Stopped from outside (Ctrl-C, a kill): the temp dir goes with it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      rmSync(dir, { recursive: true, force: true })
      process.exit(130)
    })
  }
  try {
    // Warm-up on a throwaway app: compiled code and caches are not counted as session memory.
    const warm = await buildApp(root, store, join(dir, 'warm.db'), 50)
    await steps(warm.fetch, 50, 'warm', false)
    warm.close()
    const app = await buildApp(root, store, join(dir, 'bench.db'), n)
    const outcome = await steps(app.fetch, n, 's', true, app.charged)
    console.log(JSON.stringify(outcome))
    app.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (values.child) {
  const [root, store, n] = values.child.split('|')
  await child(root!, store!, Number(n))
  process.exit(0)
}

const roots = [['this tree', resolve('.')], ...(values.root ? [['--root', resolve(values.root)]] : [])] as const
const sizes = values.sizes.split(',').map(Number)
let failed = false
console.log(`Node ${process.version}; each session: eval case of ${INVOCATIONS} invocations, 2 criteria; live = ${INVOCATIONS} x 4 events`)
console.log(
  'tree       store   sessions | heap KiB per session: idle / live / ended | RSS KiB per session | byte budget charged, KiB per session | time: create / feed / end',
)
for (const store of values.stores.split(',')) {
  for (const n of sizes) {
    for (const [name, root] of roots) {
      const self = fileURLToPath(import.meta.url)
      const run = spawnSync(process.execPath, [
        '--expose-gc',
        self,
        '--invocations',
        String(INVOCATIONS),
        '--child',
        `${root}|${store}|${n}`,
      ], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 1 << 20,
      })
      const line = run.stdout.trim().split('\n').at(-1) ?? ''
      if (run.status !== 0 || !line.startsWith('{')) {
        failed = true
        console.log(
          `${name.padEnd(10)} ${store.padEnd(7)} ${String(n).padStart(8)} | failed (exit ${run.status}): ${run.stdout.slice(-300)}`,
        )
        continue
      }
      const o = JSON.parse(line) as Outcome
      const kib = (s: Step) => s.heapKiB.toFixed(1)
      const rss = (s: Step) => s.rssKiB.toFixed(1)
      const charged = (s: Step) => (Number.isFinite(s.chargedKiB) ? s.chargedKiB.toFixed(1) : 'n/a')
      const secs = (s: Step) => `${(s.ms / 1000).toFixed(1)} s`
      console.log(
        `${name.padEnd(10)} ${store.padEnd(7)} ${String(n).padStart(8)} | ${kib(o.idle)} / ${kib(o.live)} / ${kib(o.ended)} | ${
          rss(o.idle)
        } / ${rss(o.live)} / ${rss(o.ended)} | ${charged(o.idle)} / ${charged(o.live)} / ${charged(o.ended)} | ${secs(o.idle)} / ${
          secs(o.live)
        } / ${secs(o.ended)}`,
      )
      for (const p of o.problems) console.log(`  problem: ${p}`)
      if (o.problems.length > 0) failed = true
    }
  }
}
process.exit(failed ? 1 : 0)

/**
 * The Worker's size and cold start: what `wrangler deploy` would upload (raw and gzip, as deployed
 * and minified), what it is made of (each npm package, and our code by folder, from wrangler's
 * esbuild metafile), and how long workerd takes from `new Miniflare()` to the first /healthz answer.
 *
 *   npx node bench/worker-bundle.bench.ts [runs=5] [--base DIR] [--minify] [--direct]
 *
 * Cold start is measured side by side in one run for three scripts: the Worker as bundled (its Gemini
 * judge speaks to the API over plain fetch, so @google/genai is not in it; the bench says so); the
 * same Worker given the @google/genai client instead (as it was built before); and a trivial Worker
 * that only answers /healthz, with the same two Durable Object classes, the floor set by starting
 * workerd itself. The ratio of each to the trivial Worker is printed. Each run starts a fresh workerd; the median is printed.
 * Miniflare's start includes spawning workerd, so only the differences between the rows are the
 * scripts' own parse and top-level evaluation. Everything is written under one temporary folder,
 * removed at the end.
 *
 * `--base DIR` adds a row, interleaved with the others: the Worker of another checkout (DIR, e.g. a
 * `git archive` of an earlier commit with node_modules linked in), bundled the same way, for a
 * before/after in one run. `--minify` adds the Worker minified (as `minify = true` in wrangler.toml
 * would deploy it).
 *
 * Each row also gets workerd's CPU time (Linux: its threads' run time from /proc, read when the first
 * body has arrived) and this process's own CPU time over the same span. On a shared machine the wall
 * times swing with other load while workerd's CPU time barely moves, so its ratio to the trivial
 * Worker is the steadier figure. This process's part is Miniflare building workerd's configuration
 * (its writer copies its whole buffer each time it grows), which grows with the script's size, not
 * in proportion: on 2026-11-27 about 200 ms above the trivial Worker's for 0.6 MB, 420 for 1.1 and
 * 1.6 MB, 540 for 2 MB. That is local development's cost, not the runtime's, and most of the wall
 * time between the rows.
 *
 * `--direct` also starts each script in workerd without Miniflare, interleaved with the rest: the
 * binary Miniflare runs, given a configuration that embeds the script and the two Durable Object
 * classes, from its spawn to the first /healthz body, with its CPU time by then.
 */
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build, type Plugin } from 'esbuild'
import { Miniflare } from 'miniflare'
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS, WORKERD_BUILD } from '../test/support/worker-build.ts'

const args = process.argv.slice(2)
const baseAt = args.indexOf('--base')
const BASE = baseAt >= 0 ? resolve(args.splice(baseAt, 2)[1] ?? '') : undefined
const minifyAt = args.indexOf('--minify')
const MINIFY = minifyAt >= 0 && args.splice(minifyAt, 1).length === 1
const directAt = args.indexOf('--direct')
const DIRECT = directAt >= 0 && args.splice(directAt, 1).length === 1
const RUNS = Number(args[0] ?? 5)
const ROOT = new URL('../', import.meta.url).pathname
if (BASE && !existsSync(join(BASE, 'worker/index.ts'))) throw new Error(`--base ${BASE}: no worker/index.ts there`)
const BIN = join(ROOT, 'node_modules/.bin')
const KIB = 1024

type Metafile = { outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }> }

/** `wrangler deploy --dry-run` into `outdir`: the bundle it would upload and esbuild's metafile. */
function wranglerBundle(outdir: string, minify: boolean): { file: string; meta: Metafile } {
  const args = ['deploy', '--dry-run', '--outdir', outdir, '--metafile', join(outdir, 'meta.json'), ...(minify ? ['--minify'] : [])]
  const result = spawnSync(join(BIN, 'wrangler'), args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${BIN}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
  })
  if (result.status !== 0) throw new Error(`wrangler failed:\n${result.stdout}\n${result.stderr}`)
  const meta = JSON.parse(readFileSync(join(outdir, 'meta.json'), 'utf8')) as Metafile
  const [file] = Object.keys(meta.outputs).filter((f) => f.endsWith('.js'))
  if (!file) throw new Error('wrangler wrote no .js output')
  return { file: resolve(ROOT, file), meta }
}

/** Who an input belongs to: its npm package, or our folder (`src/http`, `worker`). */
function ownerOf(input: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)
  if (pkg) return pkg[1]!
  const ours = /^(src\/[^/]+|worker)\//.exec(input)
  return ours ? `(ours) ${ours[1]}` : `(other) ${input}`
}

function breakdown(meta: Metafile): Array<[string, number]> {
  const bytes = new Map<string, number>()
  for (const output of Object.values(meta.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      bytes.set(ownerOf(input), (bytes.get(ownerOf(input)) ?? 0) + bytesInOutput)
    }
  }
  return [...bytes].sort((a, b) => b[1] - a[1])
}

/** Gives the Worker the @google/genai client in place of the plain-fetch one: the Worker as it was built before. */
const withSdk: Plugin = {
  name: 'with-sdk',
  setup(b) {
    b.onResolve({ filter: /gemini-fetch-client\.ts$/ }, () => ({ path: 'sdk-client', namespace: 'sdk' }))
    b.onLoad({ filter: /.*/, namespace: 'sdk' }, () => ({
      contents: `export { createGeminiClient as createGeminiFetchClient } from ${
        JSON.stringify(join(ROOT, 'src/judge/gemini-client.ts'))
      }\n`,
      loader: 'ts',
      resolveDir: ROOT,
    }))
  },
}

/** The Worker (of `root`) bundled as wrangler bundles it (esbuild, workerd conditions), optionally with the SDK's Gemini client. */
async function esbuildWorker(outfile: string, sdk: boolean, root = ROOT, minify = false): Promise<void> {
  await build({ ...WORKERD_BUILD, entryPoints: [join(root, 'worker/index.ts')], outfile, plugins: sdk ? [withSdk] : [], minify })
}

/** The workerd processes this one has started (Linux), by their /proc entries. */
function workerdChildren(): number[] {
  const pids: number[] = []
  try {
    for (const task of readdirSync('/proc/self/task')) {
      for (const pid of readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number)) {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'workerd') pids.push(pid)
      }
    }
  } catch {
    return [] // not Linux, or the process already gone
  }
  return pids
}

/** Milliseconds a process's threads have run (the first field of each thread's schedstat, in ns). */
function cpuMs(pid: number): number {
  let ns = 0
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0])
  }
  return ns / 1e6
}

type Start = { ready: number; first: number; workerdCpu: number; nodeCpu: number; directFirst: number; directCpu: number }

/**
 * Milliseconds from `new Miniflare()` to ready and to the first /healthz body; workerd's CPU time by
 * then (NaN where /proc cannot tell) and this process's over the same span.
 */
async function coldStart(scriptPath: string): Promise<Start> {
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const mf = new Miniflare({
    // The module given whole: with `modules: true` Miniflare would parse the script in Node first
    // to find its imports, time that is not workerd's.
    modules: [{ type: 'ESModule', path: scriptPath, contents: readFileSync(scriptPath, 'utf8') }],
    modulesRoot: dirname(scriptPath),
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: COMPATIBILITY_FLAGS,
    durableObjects: { SESSIONS: { className: 'EvalSession', useSQLite: true }, INDEX: { className: 'EvalIndex', useSQLite: true } },
    host: '127.0.0.1',
    port: 0,
  })
  try {
    await mf.ready
    const t1 = performance.now()
    const response = await mf.dispatchFetch('http://localhost/healthz')
    const body = await response.text()
    const t2 = performance.now()
    const cpu = process.cpuUsage(cpu0)
    const workerd = workerdChildren()
    const workerdCpu = workerd.length === 1 ? cpuMs(workerd[0]!) : NaN
    if (response.status !== 200 || !body.includes('"ok":true')) throw new Error(`/healthz answered ${response.status}: ${body}`)
    return { ready: t1 - t0, first: t2 - t0, workerdCpu, nodeCpu: (cpu.user + cpu.system) / 1000, directFirst: NaN, directCpu: NaN }
  } finally {
    await mf.dispose()
  }
}

/** The workerd binary Miniflare runs (the `workerd` package, Miniflare's dependency). */
function workerdBinary(): string {
  const fromMiniflare = createRequire(createRequire(import.meta.url).resolve('miniflare'))
  return (fromMiniflare('workerd') as { default: string }).default
}

/** A loopback port free a moment ago, for a workerd configuration (it has no port 0 to report back). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => done(port))
    })
  })
}

/** Milliseconds from spawning workerd itself (no Miniflare) to the first /healthz body, and its CPU time by then. */
async function directStart(scriptPath: string, dir: string): Promise<{ first: number; cpu: number }> {
  mkdirSync(dir)
  copyFileSync(scriptPath, join(dir, 'index.js'))
  const port = await freePort()
  const flags = COMPATIBILITY_FLAGS.map((f) => JSON.stringify(f)).join(', ')
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "index.js", esModule = embed "index.js")],
  compatibilityDate = "${COMPATIBILITY_DATE}",
  compatibilityFlags = [${flags}],
  durableObjectNamespaces = [
    (className = "EvalSession", uniqueKey = "sessions", enableSql = true),
    (className = "EvalIndex", uniqueKey = "index", enableSql = true),
  ],
  durableObjectStorage = (inMemory = void),
  bindings = [(name = "SESSIONS", durableObjectNamespace = "EvalSession"), (name = "INDEX", durableObjectNamespace = "EvalIndex")],
);
`,
  )
  const t0 = performance.now()
  const child = spawn(workerdBinary(), ['serve', join(dir, 'config.capnp')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise((done) => child.once('exit', done))
  try {
    // Polled until workerd listens: how long that takes is what is measured.
    for (;;) {
      if (child.exitCode !== null) throw new Error(`workerd exited ${child.exitCode}: ${stderr}`)
      const response = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined)
      if (!response) {
        await new Promise((done) => setTimeout(done, 2))
        continue
      }
      const body = await response.text()
      const first = performance.now() - t0
      if (response.status !== 200 || !body.includes('"ok":true')) throw new Error(`/healthz answered ${response.status}: ${body}`)
      return { first, cpu: cpuMs(child.pid!) }
    }
  } finally {
    child.kill()
    await exited
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const kib = (n: number) => `${(n / KIB).toFixed(1)} KiB`
const gzipped = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length

const work = mkdtempSync(join(tmpdir(), 'evalstream-worker-bench-'))
// Miniflare keeps cache and workflow folders under the temp dir it finds: this run's, removed with it.
process.env.TMPDIR = work
try {
  const deployed = wranglerBundle(join(work, 'wrangler'), false)
  const minified = wranglerBundle(join(work, 'wrangler-min'), true)
  console.log('Worker bundle (wrangler deploy --dry-run):')
  for (const [label, b] of [['as deployed', deployed], ['--minify', minified]] as const) {
    console.log(`  ${label.padEnd(12)} ${kib(statSync(b.file).size).padStart(11)} raw, ${kib(gzipped(b.file)).padStart(10)} gzip`)
  }
  console.log('\nWhat is in it (bytes in the as-deployed bundle, then minified):')
  const small = new Map(breakdown(minified.meta))
  const total = statSync(deployed.file).size
  const parts = breakdown(deployed.meta)
  const ours = parts.filter(([owner]) => owner.startsWith('(ours)'))
  const oursSum = (list: Array<[string, number]>) => list.reduce((sum, [owner, n]) => sum + (owner.startsWith('(ours)') ? n : 0), 0)
  parts.push(['(ours) all folders', oursSum(ours)])
  small.set('(ours) all folders', oursSum([...small]))
  for (const [owner, bytes] of parts) {
    if (bytes < 2 * KIB) continue
    const share = `${((bytes / total) * 100).toFixed(1)}%`
    console.log(`  ${owner.padEnd(30)} ${kib(bytes).padStart(11)} ${share.padStart(6)}   ${kib(small.get(owner) ?? 0).padStart(11)}`)
  }

  const sdk = parts.find(([owner]) => owner === '@google/genai')
  console.log(`\n@google/genai in the bundle: ${sdk ? kib(sdk[1]) : 'no'}`)

  const full = join(work, 'full', 'index.js')
  const heavy = join(work, 'sdk', 'index.js')
  const floor = join(work, 'floor', 'index.js')
  const base = join(work, 'base', 'index.js')
  const minifiedScript = join(work, 'min', 'index.js')
  await esbuildWorker(full, false)
  await esbuildWorker(heavy, true)
  if (BASE) await esbuildWorker(base, false, BASE)
  if (MINIFY) await esbuildWorker(minifiedScript, false, ROOT, true)
  mkdirSync(dirname(floor))
  writeFileSync(
    floor,
    "import { DurableObject } from 'cloudflare:workers'\n" +
      'export class EvalSession extends DurableObject {}\nexport class EvalIndex extends DurableObject {}\n' +
      'export default { fetch() { return Response.json({ ok: true }) } }\n',
  )
  const rows: Array<[string, string]> = [
    ['the Worker', full],
    ...(BASE ? [['the Worker at --base', base] as [string, string]] : []),
    ...(MINIFY ? [['the Worker, --minify', minifiedScript] as [string, string]] : []),
    ['with the SDK client', heavy],
    ['trivial Worker', floor],
  ]
  const times = new Map(rows.map(([name]) => [name, [] as Start[]]))
  // Interleaved, so a burst of load on the shared machine falls on all rows alike.
  for (let run = 0; run < RUNS; run++) {
    for (const [name, script] of rows) {
      const start = await coldStart(script)
      if (DIRECT) {
        const direct = await directStart(script, join(work, `direct-${run}-${rows.findIndex(([n]) => n === name)}`))
        Object.assign(start, { directFirst: direct.first, directCpu: direct.cpu })
      }
      times.get(name)!.push(start)
    }
  }
  const med = (name: string, key: keyof Start) => median(times.get(name)!.map((t) => t[key]))
  console.log(
    `\nCold start, median of ${RUNS} fresh workerd processes: new Miniflare() to ready / to the first /healthz body;` +
      ' workerd CPU time by then; this process (Miniflare) CPU time:',
  )
  for (const [name, script] of rows) {
    const size = `${kib(statSync(script).size)} raw, ${kib(gzipped(script))} gzip`
    const wall = `${med(name, 'ready').toFixed(0).padStart(5)} ms / ${med(name, 'first').toFixed(0).padStart(5)} ms`
    const cpu = `${med(name, 'workerdCpu').toFixed(0).padStart(4)} ms; ${med(name, 'nodeCpu').toFixed(0).padStart(4)} ms`
    console.log(`  ${name.padEnd(22)} ${wall};  CPU ${cpu}   (${size})`)
  }
  const ratio = (name: string, key: keyof Start) => {
    const [a, b] = [med(name, key), med('trivial Worker', key)]
    return `${(a / b).toFixed(2)}x (${(a - b).toFixed(0)} ms more)`
  }
  for (const [name] of rows.slice(0, -1)) {
    console.log(`  ${name} / trivial Worker: to the first body ${ratio(name, 'first')}; workerd CPU ${ratio(name, 'workerdCpu')}`)
  }
  if (DIRECT) {
    console.log(
      `\nThe same, workerd started without Miniflare (median of ${RUNS}): spawn to the first /healthz body; workerd CPU time by then:`,
    )
    for (const [name] of rows) {
      console.log(
        `  ${name.padEnd(22)} ${med(name, 'directFirst').toFixed(0).padStart(5)} ms;  CPU ${
          med(name, 'directCpu').toFixed(0).padStart(4)
        } ms`,
      )
    }
    for (const [name] of rows.slice(0, -1)) {
      console.log(`  ${name} / trivial Worker: to the first body ${ratio(name, 'directFirst')}; workerd CPU ${ratio(name, 'directCpu')}`)
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}

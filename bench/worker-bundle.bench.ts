/**
 * The Worker's size and cold start: what `wrangler deploy` would upload (raw and gzip, as deployed
 * and minified), what it is made of (each npm package, and our code by folder, from wrangler's
 * esbuild metafile), and how long workerd takes from `new Miniflare()` to the first /healthz answer.
 *
 *   npx node bench/worker-bundle.bench.ts [runs=5]
 *
 * Cold start is measured side by side in one run for three scripts: the Worker as bundled (its Gemini
 * judge speaks to the API over plain fetch, so @google/genai is not in it; the bench says so); the
 * same Worker given the @google/genai client instead (as it was built before); and a trivial Worker
 * that only answers /healthz, with the same two Durable Object classes, the floor set by starting
 * workerd itself. The ratio of each to the trivial Worker is printed. Each run starts a fresh workerd; the median is printed.
 * Miniflare's start includes spawning workerd, so only the differences between the rows are the
 * scripts' own parse and top-level evaluation. Everything is written under one temporary folder,
 * removed at the end.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build, type Plugin } from 'esbuild'
import { Miniflare } from 'miniflare'
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS, WORKERD_BUILD } from '../test/support/worker-build.ts'

const RUNS = Number(process.argv[2] ?? 5)
const ROOT = new URL('../', import.meta.url).pathname
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

/** The Worker bundled as wrangler bundles it (esbuild, workerd conditions), optionally with the SDK's Gemini client. */
async function esbuildWorker(outfile: string, sdk: boolean): Promise<void> {
  await build({ ...WORKERD_BUILD, entryPoints: [join(ROOT, 'worker/index.ts')], outfile, plugins: sdk ? [withSdk] : [] })
}

/** Milliseconds from `new Miniflare()` to ready, and to the first /healthz body. */
async function coldStart(scriptPath: string): Promise<{ ready: number; first: number }> {
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
    if (response.status !== 200 || !body.includes('"ok":true')) throw new Error(`/healthz answered ${response.status}: ${body}`)
    return { ready: t1 - t0, first: t2 - t0 }
  } finally {
    await mf.dispose()
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
  await esbuildWorker(full, false)
  await esbuildWorker(heavy, true)
  mkdirSync(dirname(floor))
  writeFileSync(
    floor,
    "import { DurableObject } from 'cloudflare:workers'\n" +
      'export class EvalSession extends DurableObject {}\nexport class EvalIndex extends DurableObject {}\n' +
      'export default { fetch() { return Response.json({ ok: true }) } }\n',
  )
  const rows: Array<[string, string]> = [['the Worker', full], ['with the SDK client', heavy], ['trivial Worker', floor]]
  const times = new Map(rows.map(([name]) => [name, { ready: [] as number[], first: [] as number[] }]))
  // Interleaved, so a burst of load on the shared machine falls on all rows alike.
  for (let run = 0; run < RUNS; run++) {
    for (const [name, script] of rows) {
      const t = await coldStart(script)
      times.get(name)!.ready.push(t.ready)
      times.get(name)!.first.push(t.first)
    }
  }
  console.log(`\nCold start, median of ${RUNS} fresh workerd processes (new Miniflare() to ready / to the first /healthz body):`)
  for (const [name, script] of rows) {
    const t = times.get(name)!
    const size = `${kib(statSync(script).size)} raw, ${kib(gzipped(script))} gzip`
    console.log(
      `  ${name.padEnd(22)} ${median(t.ready).toFixed(0).padStart(5)} ms / ${median(t.first).toFixed(0).padStart(5)} ms   (${size})`,
    )
  }
  const trivial = median(times.get('trivial Worker')!.first)
  for (const name of ['the Worker', 'with the SDK client']) {
    const first = median(times.get(name)!.first)
    console.log(`  ${name} / trivial Worker, to the first body: ${(first / trivial).toFixed(2)}x (${(first - trivial).toFixed(0)} ms more)`)
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}

/**
 * `npm run bench`: every benchmark, one after the other, each printing its own results. They are
 * benchmarks, not tests: nothing here passes or fails on timing. Run one alone with
 * `npx node bench/<name>.bench.ts`; bench/README.md records the numbers and what they mean. The
 * reliability scripts come last: bench/fuzz.ts (100,000 hostile inputs) and bench/load.ts.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const BENCHMARKS = [
  'rouge',
  'trajectory',
  'judge',
  'http',
  'proxy',
  'sessions',
  'long-invocation',
  'run',
  'otlp-decode',
  'worker-bundle',
  'results-index',
]
/** Scripts that are not timing benchmarks but belong to the same run: bench/<name>.ts. */
const RELIABILITY = ['fuzz', 'load', 'otlp-containment', 'admission']
const only = process.argv.slice(2)

for (const name of [...BENCHMARKS, ...RELIABILITY]) {
  if (only.length > 0 && !only.includes(name)) continue
  const file = RELIABILITY.includes(name) ? `${name}.ts` : `${name}.bench.ts`
  const script = fileURLToPath(new URL(`./${file}`, import.meta.url))
  if (!existsSync(script)) continue
  console.log(`\n=== ${name} (${new Date().toISOString()}) ===`)
  const run = spawnSync(process.execPath, ['--expose-gc', script], { stdio: 'inherit' })
  if (run.status !== 0) console.log(`(${name} exited with ${run.status})`)
}

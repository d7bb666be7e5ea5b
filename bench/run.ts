/**
 * `npm run bench`: every benchmark, one after the other, each printing its own results. They are
 * benchmarks, not tests: nothing here passes or fails on timing. Run one alone with
 * `npx node bench/<name>.bench.ts`; bench/README.md records the numbers and what they mean.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const BENCHMARKS = ['rouge', 'trajectory', 'judge', 'http', 'proxy', 'sessions', 'run']
const only = process.argv.slice(2)

for (const name of BENCHMARKS) {
  if (only.length > 0 && !only.includes(name)) continue
  const script = fileURLToPath(new URL(`./${name}.bench.ts`, import.meta.url))
  if (!existsSync(script)) continue
  console.log(`\n=== ${name} (${new Date().toISOString()}) ===`)
  const run = spawnSync(process.execPath, ['--expose-gc', script], { stdio: 'inherit' })
  if (run.status !== 0) console.log(`(${name} exited with ${run.status})`)
}

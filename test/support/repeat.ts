/**
 * `npm run test:repeat`: the unit and runtimes projects, ROUNDS times in a row (default 5), while
 * LOAD_PER_CORE busy processes per core (default 2) keep the machine busier than it has cores
 * (cpu-load.ts). A test that depends on timing fails here; one round's failure names its tests.
 * Exits non-zero when any round failed.
 *
 *   npm run test:repeat                        5 rounds, 2 busy processes per core
 *   ROUNDS=2 LOAD_PER_CORE=3 npm run test:repeat
 *   npm run test:repeat -- test/runtimes/session   only those files (any vitest filter)
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { availableParallelism } from 'node:os'
import { LOAD_PER_CORE, startCpuLoad } from './cpu-load.ts'

const ROUNDS = Number(process.env.ROUNDS ?? 5)
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`ROUNDS must be a whole number >= 1, not '${process.env.ROUNDS}'`)
/** Vitest filters given after `--`: only the matching files run. */
const FILTERS = process.argv.slice(2)
const PER_CORE = Number(process.env.LOAD_PER_CORE ?? LOAD_PER_CORE)
if (!Number.isInteger(PER_CORE) || PER_CORE < 0) {
  throw new Error(`LOAD_PER_CORE must be a whole number >= 0, not '${process.env.LOAD_PER_CORE}'`)
}

type Report = {
  numPassedTests: number
  numFailedTests: number
  testResults: {
    name: string
    status: string
    message?: string
    assertionResults: { status: string; fullName: string; failureMessages?: string[] }[]
  }[]
}

/** One vitest run; resolves with its exit code and JSON report (undefined when none was written). */
function round(reportFile: string): Promise<{ code: number; report?: Report }> {
  const args = [
    'run',
    '--project',
    'unit',
    '--project',
    'runtimes',
    '--reporter=dot',
    '--reporter=json',
    `--outputFile.json=${reportFile}`,
    ...FILTERS,
  ]
  return new Promise((resolve) => {
    const child = spawn('node_modules/.bin/vitest', args, { stdio: ['ignore', 'inherit', 'inherit'] })
    child.on('close', (code) => {
      let report: Report | undefined
      try {
        report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report
      } catch {
        report = undefined
      }
      resolve({ code: code ?? 1, report })
    })
  })
}

const dir = mkdtempSync(join(tmpdir(), 'evalstream-repeat-'))
const load = startCpuLoad(PER_CORE * availableParallelism())
const stop = async () => {
  await load.stop()
  rmSync(dir, { recursive: true, force: true })
}
// Stopped from outside (Ctrl-C, a kill, a CI timeout): the busy processes go with it.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.on(signal, () => void stop().then(() => process.exit(code)))
}

const lines: string[] = []
let failedRounds = 0
try {
  console.log(
    `test:repeat: ${ROUNDS} rounds of the unit and runtimes projects, ${load.processes} busy processes (${PER_CORE} per core) of background load`,
  )
  for (let i = 1; i <= ROUNDS; i++) {
    const started = performance.now()
    const { code, report } = await round(join(dir, `round-${i}.json`))
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    const failures = (report?.testResults ?? []).flatMap((f) =>
      f.assertionResults.some((a) => a.status === 'failed')
        ? f.assertionResults.filter((a) => a.status === 'failed').map((a) =>
          `${f.name}: ${a.fullName}\n    ${(a.failureMessages?.[0] ?? '').split('\n')[0]}`
        )
        : f.status === 'failed'
        ? [`${f.name}: ${(f.message ?? 'failed to load').split('\n')[0]}`]
        : []
    )
    const ok = code === 0 && failures.length === 0 && report !== undefined
    if (!ok) failedRounds++
    const line = `round ${i}/${ROUNDS}: ${ok ? 'PASS' : 'FAIL'} in ${seconds} s (${report?.numPassedTests ?? 0} passed, ${
      report?.numFailedTests ?? 0
    } failed)`
    lines.push(line, ...failures.map((f) => `  ${f}`))
    console.log(`\n${line}`)
    for (const f of failures) console.log(`  ${f}`)
  }
} finally {
  await stop()
}
console.log(
  `\ntest:repeat summary (${load.processes} busy processes):\n${lines.join('\n')}\n${ROUNDS - failedRounds}/${ROUNDS} rounds passed`,
)
process.exit(failedRounds === 0 ? 0 : 1)

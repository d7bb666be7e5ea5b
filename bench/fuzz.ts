/**
 * The long fuzz run: at least 100,000 generated inputs against every route (in process through
 * `createApp(deps).request()`) and the decoders, with the generators and checks of test/unit/fuzz
 * (whose seeded share runs in `npm test`). Reports, per target, how many inputs crashed something
 * (a throw, an unhandled rejection, a logged error, a broken body), got a 5xx, hung, or broke
 * another property, and every distinct problem with one input that caused it. Exits 1 when any
 * input failed.
 *
 *   npx node bench/fuzz.ts [--routes 40000] [--decoder 15000] [--events 25000] [--files 20000] [--seed N]
 */
import { parseArgs } from 'node:util'
import {
  checkDecoder,
  checkEvalFiles,
  checkEventParse,
  decoderInput,
  describeDecoderInput,
  describeText,
  evalFileValue,
  eventValue,
} from '../test/unit/fuzz/decoder-checks.ts'
import { makeTarget, runProbe } from '../test/unit/fuzz/route-driver.ts'
import { describeProbe, probe } from '../test/unit/fuzz/route-probes.ts'
import { formatReport, fuzz, type FuzzReport } from '../test/unit/fuzz/run.ts'
import { FUZZ_SEED } from '../test/unit/fuzz/seed.ts'

const { values } = parseArgs({
  options: {
    routes: { type: 'string', default: '40000' },
    decoder: { type: 'string', default: '15000' },
    events: { type: 'string', default: '25000' },
    files: { type: 'string', default: '20000' },
    seed: { type: 'string', default: String(FUZZ_SEED) },
  },
})
const seed = Number(values.seed)
const progress = (name: string) => (done: number, failed: number) => {
  if (done % 5_000 === 0) process.stdout.write(`  ${name}: ${done} inputs, ${failed} failed\n`)
}

/** What kind of failure a failure line is (see the checks in test/unit/fuzz). */
function kindOf(failure: string): 'crash' | '5xx' | 'hang' | 'property' {
  if (/threw|unhandled rejection|logged error|body failed/.test(failure)) return 'crash'
  if (/\): 5\d\d |^[^:]*: 5\d\d /.test(failure)) return '5xx'
  if (/did not end/.test(failure)) return 'hang'
  return 'property'
}

function summarise(name: string, report: FuzzReport): void {
  const counts = { crash: 0, '5xx': 0, hang: 0, property: 0 }
  for (const g of report.groups) counts[kindOf(g.example.split('\n')[0]!)] += g.count
  console.log(
    `${name}: ${report.runs} inputs in ${(report.ms / 1000).toFixed(1)} s (${((report.ms * 1000) / report.runs).toFixed(0)} µs each), ` +
      `${report.failed} failed; failures by kind: ${counts.crash} crashes, ${
        counts['5xx']
      } 5xx, ${counts.hang} hangs, ${counts.property} other`,
  )
  if (report.groups.length > 0) console.log(formatReport(`  ${name} problems`, report))
}

console.log(`fuzz seed ${seed} (EVALSTREAM_FUZZ_SEED=${seed} reproduces the seeded test runs' generator)`)
const reports: Array<[string, FuzzReport]> = []
const target = await makeTarget()
reports.push([
  'routes',
  await fuzz(probe, { seed, runs: Number(values.routes), onProgress: progress('routes') }, (p) => runProbe(target, p), describeProbe),
])
reports.push([
  'ingest decoder',
  await fuzz(
    decoderInput,
    { seed, runs: Number(values.decoder), onProgress: progress('ingest decoder') },
    checkDecoder,
    describeDecoderInput,
  ),
])
reports.push([
  'parseAdkEvent',
  await fuzz(eventValue, { seed, runs: Number(values.events), onProgress: progress('parseAdkEvent') }, checkEventParse, describeText),
])
reports.push([
  'eval files',
  await fuzz(evalFileValue, { seed, runs: Number(values.files), onProgress: progress('eval files') }, checkEvalFiles, describeText),
])

console.log('')
for (const [name, report] of reports) summarise(name, report)
const total = reports.reduce((n, [, r]) => n + r.runs, 0)
const failed = reports.reduce((n, [, r]) => n + r.failed, 0)
console.log(`\ntotal: ${total} inputs, ${failed} failed, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`)
process.exit(failed > 0 ? 1 : 0)

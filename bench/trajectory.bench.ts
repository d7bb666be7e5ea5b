/**
 * tool_trajectory_avg_score throughput, and parity with Python `==`.
 *
 * Generates 100,000 invocations of realistic tool calls (1-6 per invocation, nested args), with the
 * usual ways an agent's calls differ from the expected ones (reordered, missing, extra, an argument
 * changed, `None` vs `{}`, a name's case) and the ways they differ only in spelling (key order,
 * `1` vs `1.0` vs `true`). The data goes to one JSON file that both sides decode: this script
 * times evalstream's batch and incremental matchers on it, then runs bench/trajectory_py.py (ADK's
 * evaluator loop with Python `==`) on the same file and checks that every verdict is identical.
 *
 * usage: npx node bench/trajectory.bench.ts [invocations=100000]
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTrajectoryMatcher,
  finishMatcher,
  MATCH_TYPES,
  matchToolTrajectory,
  type MatchType,
  pushCall,
  type ToolCall,
} from '../src/core/trajectory.ts'

const INVOCATIONS = Number(process.argv[2] ?? 100_000)
const SEED = 20_260_522
const REPEATS = 3

let state = SEED
/** mulberry32: a fixed seed gives the same data on every run and machine. */
function rand(): number {
  state = (state + 0x6d2b79f5) | 0
  let t = Math.imul(state ^ (state >>> 15), 1 | state)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!
const int = (n: number) => Math.floor(rand() * n)

/** An integer to be written as `N.0` (a Python float); JSON.parse reads it as N all the same. */
class FloatInt {
  value: number
  constructor(value: number) {
    this.value = value
  }
}
type Spec = null | boolean | number | string | FloatInt | Spec[] | { [k: string]: Spec }

const CITIES = ['Paris', 'Lyon', 'São Paulo', 'Zürich', 'Tokyo', 'New York', 'Köln', 'Oslo']
const TOOLS: Array<[string, () => Record<string, Spec> | undefined]> = [
  ['get_weather', () => ({ city: pick(CITIES), unit: pick(['C', 'F']) })],
  [
    'search_flights',
    () => ({
      from: pick(CITIES),
      to: pick(CITIES),
      passengers: 1 + int(4),
      filters: { max_stops: int(3), cabin: pick(['economy', 'business']), refundable: rand() < 0.5 },
    }),
  ],
  [
    'book_hotel',
    () => ({
      city: pick(CITIES),
      nights: 1 + int(7),
      guests: [{ name: 'Ana', age: 20 + int(50) }, { name: 'Bo', age: int(18) }],
      budget: new FloatInt(100 * (1 + int(5))),
    }),
  ],
  ['lookup_order', () => ({ order_id: `A-${int(100000)}` })],
  ['list_files', () => undefined],
  ['get_time', () => ({})],
  [
    'sql_query',
    () => ({
      sql: 'select * from t where id = ?',
      params: [int(1000), pick(['x', 'y']), rand() < 0.5],
      options: { timeout_s: 2.5, retries: 1 },
    }),
  ],
  ['set_thermostat', () => ({ room: pick(['kitchen', 'bedroom']), target: 18 + int(6) + pick([0, 0.5]), eco: rand() < 0.3 ? 1 : 0 })],
  [
    'send_email',
    () => ({
      to: ['a@example.com'],
      subject: 'Report',
      body: 'See attached.',
      attachments: rand() < 0.5 ? [] : [{ name: 'r.pdf', size: int(5000) }],
    }),
  ],
]

function newCall(): { name: string; args: Record<string, Spec> | undefined } {
  const [name, args] = pick(TOOLS)
  return { name, args: args() }
}

/** Same value to Python, spelled differently: key order, `N` vs `N.0`, `1` vs `true`. */
function respell(value: Spec): Spec {
  if (value instanceof FloatInt) return rand() < 0.5 ? value.value : value
  if (Array.isArray(value)) return value.map(respell)
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort(() => rand() - 0.5)
    return Object.fromEntries(keys.map((k) => [k, respell(value[k]!)]))
  }
  if (typeof value === 'number' && Number.isInteger(value)) {
    if ((value === 0 || value === 1) && rand() < 0.3) return value === 1
    if (rand() < 0.2) return new FloatInt(value)
  }
  return value
}

/** A real difference in one argument somewhere inside `args`. */
function changeOne(args: Record<string, Spec>): Record<string, Spec> {
  const keys = Object.keys(args)
  if (keys.length === 0) return { unexpected: 1 }
  const key = pick(keys)
  const v = args[key]!
  const changed: Spec = typeof v === 'string'
    ? `${v}!`
    : typeof v === 'number'
    ? v + 1
    : v instanceof FloatInt
    ? v.value + 0.5
    : typeof v === 'boolean'
    ? !v
    : null
  return { ...args, [key]: changed }
}

type SpecCall = { name: string; args: Record<string, Spec> | undefined; id?: string }
function makeInvocation(): { expected: SpecCall[]; actual: SpecCall[] } {
  const expected = Array.from({ length: 1 + int(6) }, newCall)
  let actual: SpecCall[] = expected.map((c, i) => ({
    name: c.name,
    args: c.args && (respell(c.args) as Record<string, Spec>),
    id: `adk-${i}`,
  }))
  const edits = rand() < 0.4 ? 0 : 1 + int(2)
  for (let e = 0; e < edits; e++) {
    const i = int(actual.length)
    const kind = int(7)
    if (kind === 0 && actual.length > 0) actual.splice(i, 1) // missing call
    else if (kind === 1) actual.splice(i, 0, newCall()) // extra call
    else if (kind === 2 && actual.length > 1) {
      const j = int(actual.length)
      ;[actual[i], actual[j]] = [actual[j]!, actual[i]!] // reordered
    } else if (kind === 3 && actual[i]?.args) actual[i] = { ...actual[i]!, args: changeOne(actual[i]!.args!) }
    else if (kind === 4 && actual[i]) actual[i] = { ...actual[i]!, args: actual[i]!.args ? undefined : {} } // None vs {}
    else if (kind === 5 && actual[i]) actual[i] = { ...actual[i]!, name: actual[i]!.name.toUpperCase() }
    else if (kind === 6) actual = [...actual, ...actual.slice(0, 1)] // a repeated call
  }
  return { expected, actual }
}

/** JSON text, writing FloatInt as `N.0` so that Python decodes a float. */
function toJson(value: unknown): string {
  if (value instanceof FloatInt) return `${value.value}.0`
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
        .join(',')
    }}`
  }
  return JSON.stringify(value)
}

type Inv = { expected: ToolCall[]; actual: ToolCall[] }
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

function main() {
  const dir = mkdtempSync(join(tmpdir(), 'evalstream-bench-'))
  const file = join(dir, 'trajectories.json')
  try {
    const text = `[${Array.from({ length: INVOCATIONS }, () => toJson(makeInvocation())).join(',\n')}]`
    writeFileSync(file, text)
    const rssBefore = process.memoryUsage().rss
    let t = performance.now()
    const data = JSON.parse(readFileSync(file, 'utf8')) as Inv[]
    const parseMs = performance.now() - t
    const calls = data.reduce((n, inv) => n + inv.actual.length + inv.expected.length, 0)
    const heapData = process.memoryUsage().heapUsed

    const verdicts: Record<string, string> = {}
    const rows: string[] = []
    for (const matchType of MATCH_TYPES) {
      for (let i = 0; i < Math.min(10_000, data.length); i++) matchToolTrajectory(data[i]!.actual, data[i]!.expected, matchType) // warm-up
      const bits = new Uint8Array(data.length)
      let batchMs = Number.POSITIVE_INFINITY
      let liveMs = Number.POSITIVE_INFINITY
      let disagreements = 0
      // Best of REPEATS: the machines are shared, the minimum is the least disturbed run.
      for (let r = 0; r < REPEATS; r++) {
        t = performance.now()
        for (let i = 0; i < data.length; i++) bits[i] = matchToolTrajectory(data[i]!.actual, data[i]!.expected, matchType) ? 1 : 0
        batchMs = Math.min(batchMs, performance.now() - t)
        t = performance.now()
        disagreements = 0
        for (let i = 0; i < data.length; i++) {
          const m = createTrajectoryMatcher(data[i]!.expected, matchType as MatchType)
          for (const call of data[i]!.actual) pushCall(m, call)
          if ((finishMatcher(m) ? 1 : 0) !== bits[i]) disagreements++
        }
        liveMs = Math.min(liveMs, performance.now() - t)
      }
      if (disagreements > 0) throw new Error(`${matchType}: incremental disagrees with batch on ${disagreements} invocations`)
      verdicts[matchType] = Array.from(bits).join('')
      const matched = bits.reduce((n, b) => n + b, 0)
      rows.push(
        `| ${matchType} | ${(matched / data.length).toFixed(4)} | ${batchMs.toFixed(0)} ms | ${
          Math.round(data.length / (batchMs / 1000)).toLocaleString('en')
        } | ${liveMs.toFixed(0)} ms |`,
      )
    }
    const heapAfter = process.memoryUsage().heapUsed
    const maxRss = process.resourceUsage().maxRSS * 1024

    const py = spawnSync('python3', [join(import.meta.dirname, 'trajectory_py.py'), file, String(REPEATS)], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    })
    if (py.status !== 0) throw new Error(`python3 failed: ${py.stderr}`)
    const pyOut = JSON.parse(py.stdout) as {
      python: string
      max_rss_bytes: number
      match_types: Record<string, { seconds: number; mean: number; verdicts: string }>
    }

    console.log(
      `node ${process.version}, python ${pyOut.python}; ${data.length.toLocaleString('en')} invocations, ${
        calls.toLocaleString('en')
      } calls, ${mb(text.length)} of JSON (parse ${parseMs.toFixed(0)} ms)`,
    )
    console.log(
      '\n| match type | share matched | evalstream batch (best of 3) | invocations/s | evalstream incremental, best of 3 (same verdicts) |',
    )
    console.log('|---|---|---|---|---|')
    for (const row of rows) console.log(row)
    console.log('\n| match type | Python == loop (best of 3) | invocations/s | verdicts identical |')
    console.log('|---|---|---|---|')
    let allSame = true
    for (const matchType of MATCH_TYPES) {
      const p = pyOut.match_types[matchType]!
      const same = p.verdicts === verdicts[matchType]
      allSame &&= same
      const diff = same ? 'yes' : `NO (${[...p.verdicts].filter((b, i) => b !== verdicts[matchType]![i]).length} differ)`
      console.log(
        `| ${matchType} | ${(p.seconds * 1000).toFixed(0)} ms | ${Math.round(data.length / p.seconds).toLocaleString('en')} | ${diff} |`,
      )
    }
    console.log(
      `\nmemory: node heap with the parsed data ${mb(heapData)}, after matching ${mb(heapAfter)}; node peak RSS ${
        mb(maxRss)
      } (RSS before parsing ${mb(rssBefore)}); python peak RSS ${mb(pyOut.max_rss_bytes)}`,
    )
    if (!allSame) process.exitCode = 1
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

main()

/**
 * Time per event for ONE invocation of 1,000 to 100,000 events, where final responses keep arriving
 * (each completes the invocation and the next event reopens it, so it is scored again each time):
 * this tree's engine side by side with the engine before the fix (git commit BASELINE_REV, taken
 * with `git archive`), in the same run. Each measurement runs in its own child process; a baseline
 * run that takes longer than the budget is stopped and reported as such. Where both sides ran,
 * their results must agree (every emitted result and the case result, compared by hash; result
 * keys are left out, they now name metrics instead of numbering them, and so are a result's
 * details: the trajectory's now list at most MAX_LISTED_CALLS calls each; ADK's efficiency metrics,
 * which only this tree reports, are left out of the comparison and the result counts).
 *
 *   npx node bench/long-invocation.bench.ts [budget seconds per baseline run = 60] [max events = 100000]
 *
 * EVALSTREAM_BASELINE_REV picks another baseline commit; EVALSTREAM_BASELINE_DIR uses a checkout
 * (its src/) instead of git.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The last commit before the engine's per-event cost became flat. */
export const BASELINE_REV = '92cc2ff'
export const SIZES = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000]
/** A baseline run longer than this is stopped (seconds); the quadratic baseline needs ~11 min for 100k. */
export const DEFAULT_BUDGET_S = 60

const SCENARIOS = {
  /** The case of issue 7: every agent event is a complete final text. */
  'final-texts': (i: number) => agent(i, { parts: [{ text: `answer number ${i} is forty two` }] }),
  /** Streamed answers: nine partial chunks, then the whole text once more (ADK's streaming mode). */
  streamed: (i: number) =>
    i % 10 === 0
      ? agent(i, { parts: [{ text: 'the answer is forty two' }] })
      : { ...agent(i, { parts: [{ text: `chunk${i} ` }] }), partial: true },
  /** Tool calls between answers: call, response, final text, repeated (see long-invocation.md). */
  'tool-calls': (i: number) =>
    i % 3 === 1
      ? agent(i, { parts: [{ function_call: { name: 'lookup', args: { n: i } } }] })
      : i % 3 === 2
      ? agent(i, { role: 'user', parts: [{ function_response: { name: 'lookup', response: { n: i } } }] })
      : agent(i, { parts: [{ text: `answer number ${i}` }] }),
} as const
type Scenario = keyof typeof SCENARIOS
/** Every scenario runs to the largest size (tool_trajectory details list at most MAX_LISTED_CALLS calls). */
const MAX_EVENTS: Partial<Record<Scenario, number>> = {}

function agent(i: number, content: object) {
  return { invocation_id: 'one', author: 'agent', id: `ev-${i}`, content: { role: 'model', ...content } }
}

const EVAL_CASE = {
  eval_id: 'long',
  conversation: [
    {
      invocation_id: 'expected',
      user_content: { role: 'user', parts: [{ text: 'q' }] },
      final_response: { role: 'model', parts: [{ text: 'the answer is forty two' }] },
      intermediate_data: { tool_uses: [{ name: 'lookup', args: { n: 1 } }] },
    },
  ],
}

/** ADK's always-reported efficiency metrics: new since the baseline, so left out of the comparison. */
const EFFICIENCY = new Set(['tool_call_count_v1', 'inference_call_count_v1', 'token_usage_v1', 'invocation_duration_v1'])

/** The case result with the efficiency metrics' entries taken out (and the count of results). */
function withoutEfficiency(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value),
    (_key, v) =>
      Array.isArray(v)
        ? v.filter((m) => !(m && typeof m === 'object' && EFFICIENCY.has((m as { metric_name?: string }).metric_name ?? '')))
        : v,
  )
}

type Measurement = { pushMs: number; endMs: number; results: number; resultsHash: string; caseHash: string }

/** Child mode: one engine, one scenario, one size; prints one JSON line. */
async function measure(root: string, scenario: Scenario, events: number): Promise<Measurement> {
  const { createSessionEngine } = (await import(join(root, 'src/engine/session-engine.ts'))) as {
    createSessionEngine: (o: unknown) => { ok: boolean; engine: { push(e: unknown): void; end(): Promise<unknown> } }
  }
  const { evalCaseResultValue } = await import(join(root, 'src/adk/results-json.ts'))
  const hash = createHash('sha256')
  let results = 0
  const created = createSessionEngine({
    spec: { session_id: 'bench', eval_case: EVAL_CASE },
    emit: (body: { type: string; data: unknown }) => {
      if (!EFFICIENCY.has((body.data as { metric_name?: string }).metric_name ?? '')) results++
      // Scores and statuses of the configured criteria only: details are left out (the trajectory's
      // now list at most 100 calls each), and so are ADK's efficiency metrics, which the baseline
      // does not report.
      const data = body.data as { metric_name?: string }
      if (body.type !== 'case.result' && !EFFICIENCY.has(data.metric_name ?? '')) {
        hash.update(`${body.type}\n${JSON.stringify({ ...data, details: undefined })}\n`)
      }
    },
  })
  const make = SCENARIOS[scenario]
  const items = [{ index: 0, raw: {}, event: { invocation_id: 'one', author: 'user', content: { role: 'user', parts: [{ text: 'q' }] } } }]
  for (let i = 1; i < events; i++) items.push({ index: i, raw: {}, event: make(i) as never })
  globalThis.gc?.()
  const t0 = performance.now()
  for (const item of items) created.engine.push(item)
  const t1 = performance.now()
  const ended = (await created.engine.end()) as Record<string, unknown>
  // Before the fix end() returned ADK's file shape; now the host writes it: time it here too.
  const value = typeof ended.final_eval_status === 'number' ? ended : evalCaseResultValue(ended)
  const t2 = performance.now()
  const caseHash = createHash('sha256').update(JSON.stringify(withoutEfficiency(value))).digest('hex').slice(0, 12)
  return { pushMs: t1 - t0, endMs: t2 - t1, results, resultsHash: hash.digest('hex').slice(0, 12), caseHash }
}

function baselineRoot(): { root: string; cleanup(): void } {
  if (process.env.EVALSTREAM_BASELINE_DIR) return { root: process.env.EVALSTREAM_BASELINE_DIR, cleanup() {} }
  const rev = process.env.EVALSTREAM_BASELINE_REV ?? BASELINE_REV
  if (!/^[\w./-]+$/.test(rev)) throw new Error(`EVALSTREAM_BASELINE_REV is not a git revision: '${rev}'`)
  const repo = fileURLToPath(new URL('..', import.meta.url))
  const dir = mkdtempSync(join(tmpdir(), 'evalstream-baseline-'))
  const archive = spawnSync('git', ['-C', repo, 'archive', rev, 'src'], { maxBuffer: 1 << 30 })
  if (archive.status !== 0) throw new Error(`git archive ${rev} failed: ${archive.stderr}`)
  const tar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout })
  if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`)
  // Outside node_modules (Node strips types only there), resolving packages from this checkout.
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'))
  return { root: dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Runs one measurement in a child process; null when it ran past the budget. */
function child(root: string, scenario: Scenario, events: number, budgetS?: number): Measurement | null {
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=4096', fileURLToPath(import.meta.url), '--measure', root, scenario, String(events)],
    { encoding: 'utf8', timeout: budgetS === undefined ? undefined : budgetS * 1000, maxBuffer: 1 << 20 },
  )
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') return null
  if (run.status !== 0) throw new Error(`measurement failed (${scenario}, ${events}): ${run.stderr}`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Measurement
}

const perEvent = (m: Measurement, events: number) => `${((m.pushMs * 1000) / events).toFixed(1)} µs`

async function main(): Promise<void> {
  const budgetS = Number(process.argv[2] ?? DEFAULT_BUDGET_S)
  const maxEvents = Number(process.argv[3] ?? SIZES.at(-1))
  const here = fileURLToPath(new URL('..', import.meta.url))
  const baseline = baselineRoot()
  console.log(
    `node ${process.version}; baseline: ${
      process.env.EVALSTREAM_BASELINE_DIR ?? `git ${process.env.EVALSTREAM_BASELINE_REV ?? BASELINE_REV}`
    }; budget ${budgetS} s per baseline run`,
  )
  let disagreements = 0
  try {
    for (const scenario of Object.keys(SCENARIOS) as Scenario[]) {
      console.log(`\n${scenario}: one invocation, default criteria (tool_trajectory_avg_score 1.0, response_match_score 0.8)`)
      console.log('| events | now: push per event | now: end | baseline: push per event | baseline: end | results agree |')
      console.log('|---|---|---|---|---|---|')
      let baselineOver = false
      for (const events of SIZES) {
        if (events > maxEvents || events > (MAX_EVENTS[scenario] ?? Infinity)) continue
        const now = child(here, scenario, events)!
        const before = baselineOver ? null : child(baseline.root, scenario, events, budgetS)
        if (!before) baselineOver = true
        const agree = before
          ? before.resultsHash === now.resultsHash && before.caseHash === now.caseHash && before.results === now.results
          : undefined
        if (agree === false) disagreements++
        console.log(
          `| ${events.toLocaleString('en')} | ${perEvent(now, events)} | ${now.endMs.toFixed(0)} ms | ` +
            (before
              ? `${perEvent(before, events)} | ${before.endMs.toFixed(0)} ms | ${agree ? 'yes' : 'NO'} (${now.results} results) |`
              : `over ${budgetS} s | | |`),
        )
      }
    }
  } finally {
    baseline.cleanup()
  }
  if (disagreements > 0) {
    console.log(`\n${disagreements} size(s) where the results differ`)
    process.exitCode = 1
  }
}

if (process.argv[2] === '--measure') {
  const [root, scenario, events] = process.argv.slice(3)
  console.log(JSON.stringify(await measure(root!, scenario as Scenario, Number(events))))
} else {
  await main()
}

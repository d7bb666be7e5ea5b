/**
 * `evalstream run EVALSET[:case1,case2] ... --agent URL --app NAME [--config FILE] [--parallel N]
 *  [--num-runs K] [--out FILE] [--json] [--capture DIR] [--session-timeout S] [--turn-timeout S]`
 *
 * Runs ADK eval sets against a live ADK api_server (any language) and scores every event live with
 * the engine the service uses (judge wiring from the same environment variables). Prints what
 * `evalstream eval` prints, per case. Exit codes: 0 every case passed, 1 a case failed or was not
 * evaluated, 2 bad input (the message names the file).
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { evalSetResultJson } from '../../adk/results-json.ts'
import { judgedEngines, judgeWiringFromEnv } from '../../config/judge-wiring.ts'
import { createGeminiClient } from '../../judge/gemini-client.ts'
import { progressDisplay } from '../../runner/progress-display.ts'
import { type EvalSetInput, type EvalSetRun, runEvalSets, type UnitRef } from '../../runner/run-eval-set.ts'
import { renderReport } from './cli-report.ts'
import { findTestConfig, loadEvalConfigFile, loadEvalSetFile, writeEvalSetResultFile } from './files.ts'
import { junitXml, markdownSummary, type ReportedCase } from './ci-reports.ts'
import { DEFAULT_LOOPBACK_WAIT_MS, isLoopback, waitForAgent } from './wait-for-agent.ts'

export const RUN_USAGE = `usage: evalstream run EVALSET[:CASE,CASE] ... --agent URL --app NAME [options]

  EVALSET[:IDS]          an ADK eval set file; ":a,b" runs only cases a and b (as adk eval takes them)
  --agent URL            the ADK api_server (adk api_server, adk web, or a deployed agent)
  --app NAME             the app to run, as GET /list-apps names it
  --config FILE          an ADK EvalConfig (default: test_config.json beside each EVALSET, else ADK's defaults)
  --parallel N           cases in flight at once (default 4, at most 64)
  --num-runs K           run each case K times; the verdict is then AgentEvaluator's mean over runs (default 1)
  --out PATH             write the ADK EvalSetResult file (a directory of them when several eval sets)
  --json                 print the EvalSetResult JSON instead of the table
  --capture DIR          keep each case run's /run_sse bytes as DIR/<eval_set_id>/<eval_id>[.run<k>].sse
  --session-timeout S    seconds to wait for the agent to create a session (default 30)
  --turn-timeout S       seconds one turn (the whole /run_sse answer) may take (default 300)
  --wait S               seconds to wait for the agent to accept connections before the first case
                         (default 180 for a loopback --agent, else 0; --wait 0 does not wait)
  --junit FILE           also write JUnit XML: one test case per eval case run, one failure per failed criterion
  --summary FILE         also append a Markdown summary (e.g. --summary "$GITHUB_STEP_SUMMARY")

Judged criteria need GEMINI_API_KEY (or GOOGLE_CLOUD_PROJECT + GOOGLE_CLOUD_LOCATION).`

export type RunIo = {
  env: Record<string, string | undefined>
  out(text: string): void
  err(text: string): void
  /** Live progress (redrawn status line) when stderr is a terminal; plain lines otherwise. */
  isTTY: boolean
  fetch?: typeof fetch
  now?: () => number
  /** Injected in tests (with `now`) so waiting for the agent takes no real time. */
  sleep?: (ms: number) => Promise<void>
}

class BadInput extends Error {}

/**
 * @example
 * const code = await runCommand(['tests/weather.evalset.json', '--agent', 'http://127.0.0.1:8000', '--app', 'weather_agent'], io)
 */
export async function runCommand(args: string[], io: RunIo): Promise<number> {
  try {
    return await run(args, io)
  } catch (e) {
    if (e instanceof BadInput || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`evalstream: ${(e as Error).message}\n\n${RUN_USAGE}\n`)
      return 2
    }
    throw e
  }
}

async function run(args: string[], io: RunIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      agent: { type: 'string' },
      app: { type: 'string' },
      config: { type: 'string' },
      parallel: { type: 'string' },
      'num-runs': { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
      capture: { type: 'string' },
      'session-timeout': { type: 'string' },
      'turn-timeout': { type: 'string' },
      wait: { type: 'string' },
      junit: { type: 'string' },
      summary: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) {
    io.out(`${RUN_USAGE}\n`)
    return 0
  }
  if (positionals.length === 0) throw new BadInput('give at least one EVALSET file')
  if (!values.agent) throw new BadInput('--agent URL is required')
  if (!values.app) throw new BadInput('--app NAME is required')
  if (!URL.canParse(values.agent) || !/^https?:$/.test(new URL(values.agent).protocol)) {
    throw new BadInput(`--agent must be an http(s) URL, not '${values.agent}'`)
  }
  const waitMs = values.wait === undefined
    ? (isLoopback(values.agent) ? DEFAULT_LOOPBACK_WAIT_MS : 0)
    : values.wait === '0'
    ? 0
    : seconds(values.wait, '--wait')!
  const sets = await loadSets(positionals, values.config)
  if ('error' in sets) {
    io.err(`evalstream: ${sets.error}\n`)
    return 2
  }
  const wiring = judgeWiringFromEnv(io.env, { geminiClient: createGeminiClient })
  if (!wiring.ok) {
    io.err(`evalstream: ${wiring.error}\n`)
    return 2
  }
  const createEngine = judgedEngines(wiring.value.judging)
  const captures = values.capture ? captureWriter(values.capture) : undefined
  if (waitMs > 0) {
    const sleep = io.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
    const waited = await waitForAgent(values.agent, waitMs, { fetch: io.fetch ?? fetch, now: io.now ?? Date.now, sleep, err: io.err })
    // Not fatal: every case then reports NOT_EVALUATED with the agent's error, as without --wait.
    if (!waited.ok) {
      io.err(
        `evalstream: the agent at ${values.agent} did not accept a connection within ${Math.round(waitMs / 1000)} s (${waited.cause})\n`,
      )
    }
  }
  const display = progressDisplay(io.err, io.isTTY)
  const report = await runEvalSets(sets.inputs, {
    agent: { url: values.agent, app: values.app, fetch: io.fetch },
    createEngine,
    simulator: wiring.value.executor,
    parallel: count(values.parallel, '--parallel'),
    numRuns: count(values['num-runs'], '--num-runs'),
    timeouts: {
      sessionMs: seconds(values['session-timeout'], '--session-timeout'),
      turnMs: seconds(values['turn-timeout'], '--turn-timeout'),
    },
    onProgress: (event) => {
      display.update(event)
      if (event.type === 'case.done') captures?.finish(event.outcome)
    },
    onBytes: captures?.push,
    now: io.now,
  })
  display.close()
  if (!report.ok) {
    io.err(`evalstream: ${report.error}\n`)
    return 2
  }
  await captures?.flushed()
  if (values.out) await writeResults(values.out, report.sets)
  if (values.junit) await writeFile(values.junit, junitXml(reportedCases(report.sets)))
  if (values.summary) await writeFile(values.summary, markdownSummary(reportedCases(report.sets)), { flag: 'a' })
  if (values.json) {
    const texts = report.sets.map((s) => evalSetResultJson(s.evalSetResult))
    io.out(`${texts.length === 1 ? texts[0] : `[${texts.join(',')}]`}\n`)
  } else io.out(`${renderRun(report.sets)}\n`)
  return report.passed ? 0 : 1
}

type Loaded = { inputs: EvalSetInput[] } | { error: string }

/** `file.json:a,b` -> the file and its case ids; the same file named twice merges its ids. */
async function loadSets(specs: string[], configPath: string | undefined): Promise<Loaded> {
  const byPath = new Map<string, string[] | null>()
  for (const spec of specs) {
    const colon = spec.lastIndexOf(':')
    // "C:\x" is a path, not a case list; so is a colon followed by a path.
    const split = colon > 1 && !/[\\/]/.test(spec.slice(colon + 1))
    const path = split ? spec.slice(0, colon) : spec
    const ids = split ? spec.slice(colon + 1).split(',').map((s) => s.trim()).filter(Boolean) : null
    // null means every case of the file: it wins over any list.
    const known = byPath.get(path)
    if (!byPath.has(path)) byPath.set(path, ids)
    else byPath.set(path, known === null || ids === null ? null : [...known!, ...ids])
  }
  let shared: unknown
  if (configPath !== undefined) {
    const config = await loadEvalConfigFile(configPath)
    if (!config.ok) return { error: config.error.message }
    shared = config.config
  }
  const inputs: EvalSetInput[] = []
  for (const [path, ids] of byPath) {
    const loaded = await loadEvalSetFile(path)
    if (!loaded.ok) return { error: loaded.error.message }
    let evalConfig = shared
    const beside = configPath === undefined ? await findTestConfig(path) : undefined
    if (beside !== undefined) {
      const config = await loadEvalConfigFile(beside)
      if (!config.ok) return { error: config.error.message }
      evalConfig = config.config
    }
    inputs.push({ evalSet: loaded.evalSet, source: path, evalConfig, ...(ids ? { caseIds: ids } : {}) })
  }
  return { inputs }
}

function count(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) throw new BadInput(`${flag} must be a whole number >= 1, not '${raw}'`)
  return n
}

function seconds(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (!Number.isFinite(n) || n <= 0) throw new BadInput(`${flag} must be a positive number of seconds, not '${raw}'`)
  return n * 1000
}

/** One EvalSetResult: --out is the file. Several: --out is a directory of ADK-named files. */
async function writeResults(out: string, sets: EvalSetRun[]): Promise<void> {
  if (sets.length === 1) {
    await writeEvalSetResultFile(out, sets[0]!.evalSetResult)
    return
  }
  for (const s of sets) {
    const name = s.evalSetResult.eval_set_result_name ?? s.evalSetResult.eval_set_result_id
    await writeEvalSetResultFile(join(out, `${name}.evalset_result.json`), s.evalSetResult)
  }
}

/** Keeps each unit's bytes until it is done, then writes them as one file. */
function captureWriter(dir: string) {
  const chunks = new Map<string, Uint8Array[]>()
  const writes: Promise<unknown>[] = []
  const key = (u: UnitRef) => JSON.stringify([u.evalSetId, u.evalId, u.run])
  return {
    push(unit: UnitRef, bytes: Uint8Array) {
      const list = chunks.get(key(unit)) ?? []
      list.push(bytes.slice())
      chunks.set(key(unit), list)
    },
    finish(unit: UnitRef) {
      const list = chunks.get(key(unit)) ?? []
      chunks.delete(key(unit))
      const folder = join(dir, safeName(unit.evalSetId))
      const file = join(folder, `${safeName(unit.evalId)}${unit.run > 0 ? `.run${unit.run + 1}` : ''}.sse`)
      writes.push(mkdir(folder, { recursive: true }).then(() => writeFile(file, Buffer.concat(list))))
    },
    flushed: () => Promise.all(writes),
  }
}

/** Ids become file names: anything but letters, digits, dot, dash and underscore is replaced. */
function safeName(id: string): string {
  return id.replace(/[^\w.-]/g, '_').replace(/^\.+/, '_') || '_'
}

/** Every case run, as the JUnit and Markdown reports take it. */
function reportedCases(sets: EvalSetRun[]): ReportedCase[] {
  return sets.flatMap((set) =>
    set.cases.flatMap((verdict) =>
      verdict.runs.map((run) => ({
        suite: set.evalSetId,
        name: verdict.runs.length > 1 ? `${verdict.evalId} (run ${run.run + 1} of ${verdict.runs.length})` : verdict.evalId,
        status: run.status,
        results: run.results,
        overall: run.caseResult.overall_eval_metric_results.map((m) => ({
          metric_name: m.metric_name,
          score: m.score,
          threshold: m.threshold ?? null,
          eval_status: m.eval_status,
        })),
        ...(run.reason !== undefined ? { reason: run.reason } : {}),
      }))
    )
  )
}

function renderRun(sets: EvalSetRun[]): string {
  const blocks: string[] = []
  for (const set of sets) {
    for (const verdict of set.cases) {
      const multi = verdict.runs.length > 1
      for (const run of verdict.runs) {
        const title = multi ? `${verdict.evalId} (run ${run.run + 1} of ${verdict.runs.length})` : verdict.evalId
        if (run.reason !== undefined && run.caseResult.overall_eval_metric_results.length === 0) {
          blocks.push(`eval case ${title}\n\ncase ${title}: NOT_EVALUATED\n  reason: ${run.reason}`)
          continue
        }
        const overall = run.caseResult.overall_eval_metric_results.map((m) => ({
          metric_name: m.metric_name,
          score: m.score,
          threshold: m.threshold ?? 0,
          eval_status: m.eval_status,
          reason: m.eval_status === 'NOT_EVALUATED'
            ? run.results.find((r) => r.metric_name === m.metric_name && r.reason)?.reason
            : undefined,
        }))
        blocks.push(renderReport(run.results, { evalId: title, status: run.status, overall }))
      }
      if (multi) {
        const lines = verdict.overall.map((m) =>
          `  ${m.metric_name.padEnd(34)}  ${m.score === null ? '—' : m.score.toFixed(4)}  ${
            m.eval_status === 'INFORMATIONAL' ? '-' : m.threshold
          }  ${m.eval_status}`
        )
        blocks.push(
          [
            `case ${verdict.evalId} over ${verdict.runs.length} runs (mean of per-invocation scores): ${verdict.status}`,
            ...lines,
            ...(verdict.reason ? [`  reason: ${verdict.reason}`] : []),
          ].join('\n'),
        )
      }
    }
    const passed = set.cases.filter((c) => c.status === 'PASSED').length
    blocks.push(`eval set ${set.evalSetId}: Tests passed: ${passed}, Tests failed: ${set.cases.length - passed}`)
  }
  return blocks.join('\n\n')
}

/**
 * The work behind `evalstream eval`: load the eval set and config, decode the recorded run, score
 * it with the live engine, and render the table and the ADK EvalSetResult. No process I/O here
 * beyond reading the named files (and calling the judge), so tests call it directly.
 *
 * The engine is built as the server builds it (src/config/judge-wiring.ts): the same judge from the
 * environment, the same session sampling (EVALSTREAM_JUDGE_SAMPLE_RATE, by session id) and the
 * same budgets (EVALSTREAM_JUDGE_BUDGET_PER_SESSION / _PER_DEPLOYMENT), so a CI run and a live
 * session give the same results.
 */
import { evalSetResultJson } from '../../adk/results-json.ts'
import { type EvalSetResult, evalSetResult } from '../../adk/results.ts'
import type { EvalCase } from '../../adk/eval-set.ts'
import { DEFAULT_LIMITS, type IngestIssue, sniffFormat } from '../../ingest/index.ts'
import { countedTarget, feedSession } from '../../session/feed.ts'
import { createSessionEngine } from '../../engine/session-engine.ts'
import type { CriterionResultData } from '../../engine/types.ts'
import { judgeWiringFromEnv } from '../../config/judge-wiring.ts'
import { createGeminiClient } from '../../judge/gemini-client.ts'
import { findTestConfig, loadEvalConfigFile, loadEvalSetFile } from './files.ts'
import { renderReport } from './cli-report.ts'
import { looksLikeOtlpJson, looksLikeTraceStoreExport } from '../../otlp/index.ts'
import { otlpRunFromText, pushOtlpRun, unscorableOf } from './otlp-events.ts'
import type { ReportedCase } from './ci-reports.ts'

export type EvalRunInput = {
  evalSetPath: string
  eventsName: string
  eventsText: string
  configPath?: string
  caseId?: string
  /** Which conversation of an OTLP export to score, when it holds several. */
  conversationId?: string
  env: Record<string, string | undefined>
  /** Seconds since the epoch for the result id; the CLI passes the clock, tests a constant. */
  now?: number
}

export type EvalRunOutcome =
  | {
    ok: true
    passed: boolean
    report: string
    evalSetResult: EvalSetResult
    evalSetResultJson: string
    results: CriterionResultData[]
    /** The case as the JUnit and Markdown reports take it. */
    reported: ReportedCase
    warnings: string[]
  }
  | { ok: false; error: string }

/** The app name ADK puts in result ids: the session input's, else ADK's inference default. */
const DEFAULT_APP_NAME = 'EvaluationGenerator'

export async function runEval(input: EvalRunInput): Promise<EvalRunOutcome> {
  const loaded = await loadEvalSetFile(input.evalSetPath)
  if (!loaded.ok) return { ok: false, error: loaded.error.message }
  const evalSet = loaded.evalSet

  const picked = pickCase(evalSet.eval_cases, input.caseId, input.evalSetPath)
  if ('error' in picked) return { ok: false, error: picked.error }

  const configPath = input.configPath ?? (await findTestConfig(input.evalSetPath))
  let evalConfig: unknown
  if (configPath !== undefined) {
    const config = await loadEvalConfigFile(configPath)
    if (!config.ok) return { ok: false, error: config.error.message }
    evalConfig = config.config
  }

  const wiring = judgeWiringFromEnv(input.env, { geminiClient: createGeminiClient })
  if (!wiring.ok) return { ok: false, error: wiring.error }

  const warnings: string[] = []
  // An OTLP export (or a Jaeger or Tempo one) carries its own times: the engine's clock reads them (see otlp-events.ts).
  const otlp = looksLikeOtlpJson(input.eventsText) || looksLikeTraceStoreExport(input.eventsText)
    ? otlpRunFromText(input.eventsText, input.eventsName, input.conversationId, DEFAULT_LIMITS)
    : undefined
  if (otlp && 'error' in otlp) return { ok: false, error: otlp.error }
  let traceTimeMs = Number.NaN
  const results: CriterionResultData[] = []
  const sessionId = `${evalSet.eval_set_id}/${picked.evalCase.eval_id}`
  const created = createSessionEngine({
    spec: { session_id: sessionId, eval_config: evalConfig, eval_case: picked.evalCase },
    // A criterion the config file gets wrong is reported against the file, with its JSON path.
    configSource: configPath,
    emit: (body) => {
      if (body.type === 'criterion.result') results.push(body.data)
    },
    ...wiring.value.judging(sessionId),
    ...(otlp ? { clock: () => traceTimeMs, unscorable: unscorableOf(otlp) } : {}),
  })
  if (!created.ok) return { ok: false, error: `${created.problem.title}: ${created.problem.detail}` }
  const engine = created.engine

  if (otlp) {
    pushOtlpRun(otlp, (ms) => (traceTimeMs = ms), engine)
    warnings.push(...otlp.warnings)
  } else {
    const format = sniffFormat(input.eventsText, input.eventsName)
    const issues: IngestIssue[] = []
    let accepted = 0
    const feed = feedSession(countedTarget(engine), format, DEFAULT_LIMITS, {
      accepted: () => void (accepted += 1),
      issue: (issue) => {
        issues.push(issue)
        warnings.push(`${input.eventsName}: event ${issue.index}: ${issue.message}${issue.path ? ` (at ${issue.path})` : ''}`)
      },
    })
    feed.push(input.eventsText)
    feed.end()
    if (feed.stopped) warnings.push(`${input.eventsName}: ${feed.stopped.problem.detail}`)
    // Nothing to score is bad input (exit 2), not a failed case: say what the file held instead.
    if (accepted === 0) return { ok: false, error: noEvents(input.eventsName, input.eventsText, issues) }
  }
  const caseResult = await engine.end()
  // ADK's eval sets name results after the case's app; a recorded run has no other app name.
  const appName = picked.evalCase.session_input?.app_name ?? DEFAULT_APP_NAME
  const setResult = evalSetResult({
    appName,
    evalSetId: evalSet.eval_set_id,
    caseResults: [{ ...caseResult, eval_set_file: evalSet.eval_set_id, eval_set_id: evalSet.eval_set_id }],
    timestamp: input.now ?? 0,
  })
  const status = caseResult.final_eval_status
  const overall = caseResult.overall_eval_metric_results.map((m) => ({
    metric_name: m.metric_name,
    score: m.score,
    threshold: m.threshold ?? 0,
    eval_status: m.eval_status,
    reason: m.eval_status === 'NOT_EVALUATED' ? firstReason(results, m.metric_name) : undefined,
  }))
  const report = renderReport(results, { evalId: picked.evalCase.eval_id, status, overall })
  return {
    ok: true,
    passed: status === 'PASSED',
    report,
    evalSetResult: setResult,
    evalSetResultJson: evalSetResultJson(setResult),
    results,
    reported: { suite: evalSet.eval_set_id, name: picked.evalCase.eval_id, status, results, overall },
    warnings,
  }
}

/** Where the first undecodable event is, or that the file is empty. */
function noEvents(name: string, text: string, issues: Array<{ index: number; message: string; path?: string }>): string {
  if (text.trim() === '') return `${name}: no events: the file is empty (expected a /run_sse body, NDJSON, or a JSON array of ADK events)`
  const first = issues[0]
  const where = first ? `; event ${first.index}: ${first.message}${first.path ? ` (at ${first.path})` : ''}` : ''
  return `${name}: no ADK event found${issues.length ? ` (${issues.length} rejected)` : ''}${where.replace(/\s+/g, ' ')}`
}

function pickCase(cases: EvalCase[], caseId: string | undefined, source: string): { evalCase: EvalCase } | { error: string } {
  const ids = cases.map((c) => c.eval_id).join(', ')
  if (caseId !== undefined) {
    const found = cases.find((c) => c.eval_id === caseId)
    return found ? { evalCase: found } : { error: `${source}: no eval case '${caseId}' (cases: ${ids})` }
  }
  if (cases.length === 1) return { evalCase: cases[0]! }
  if (cases.length === 0) return { error: `${source}: the eval set has no eval cases` }
  return { error: `${source}: the eval set holds ${cases.length} cases; choose one with --case (${ids})` }
}

function firstReason(results: CriterionResultData[], metric: string): string {
  return results.find((r) => r.metric_name === metric && r.reason)?.reason ?? 'no invocation was scored'
}

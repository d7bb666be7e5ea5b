/**
 * The Eval tab's "Run": the stored eval set (or the chosen cases) runs against the agent this
 * deployment fronts through the runner (src/runner, as `evalstream run` and POST /v1/runs do), the
 * EvalSetResult is stored, and the per-case results are answered as ADK's `RunEvalResult`s.
 *
 * The UI sends `{evalIds, evalMetrics: [{metricName, threshold}]}`; ADK also takes snake_case and
 * `eval_case_ids`. The metrics become an EvalConfig (`criteria: {name: criterion}`); no metrics
 * means the deployment default config (EVALSTREAM_CONFIG), else ADK's default criteria.
 */
import { type Failure, failure } from '../../engine/problem.ts'
import * as z from 'zod'
import { EvalMetric } from '../../adk/eval-config.ts'
import type { EvalSet } from '../../adk/eval-set.ts'
import { isRecord } from '../../adk/json.ts'
import { evalSetResultJson } from '../../adk/results-json.ts'
import { DEFAULT_RUN_QUOTAS } from '../../runner/run-quotas.ts'
import type { AppDeps } from '../deps.ts'
import type { EvalScope, EvalSetStore } from './eval-set-store.ts'
import { DEFAULT_PARALLEL, runEvalSets } from '../../runner/run-eval-set.ts'
import { forTheTab } from './camel.ts'
import { alwaysReportedCriteria } from '../../core/registry.ts'

const ALWAYS_REPORTED = new Set(alwaysReportedCriteria().map((c) => c.key))

/** Eval tab runs in progress at once per process (or Durable Object) by default (EVALSTREAM_MAX_ACTIVE_DEV_RUNS); more get 429. */
export const MAX_ACTIVE_DEV_RUNS = DEFAULT_RUN_QUOTAS.activeDevRuns
/** Cases of one run talking to the agent at once. */
export const DEV_RUN_PARALLEL = DEFAULT_PARALLEL

export type RunRequest = { caseIds: string[]; evalConfig: unknown }

/**
 * @example readRunRequest({ evalIds: ['paris'], evalMetrics: [{ metricName: 'response_match_score', threshold: 0.7 }] })
 */
export function readRunRequest(body: unknown, defaultConfig: unknown): { ok: true; request: RunRequest } | { ok: false; error: string } {
  if (!isRecord(body)) return { ok: false, error: 'the body must be a JSON object like {"evalIds": [...], "evalMetrics": [...]}' }
  const ids = [body.eval_case_ids ?? body.evalCaseIds, body.eval_ids ?? body.evalIds]
  const caseIds: string[] = []
  for (const [i, list] of ids.entries()) {
    if (list === undefined || list === null) continue
    const name = i === 0 ? 'evalCaseIds' : 'evalIds'
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) {
      return { ok: false, error: `${name} must be an array of eval case ids (strings)` }
    }
    // ADK: eval_case_ids wins; the deprecated eval_ids is used only when it is empty.
    if (caseIds.length === 0) caseIds.push(...(list as string[]))
  }
  const metrics = body.eval_metrics ?? body.evalMetrics
  if (metrics === undefined || metrics === null || (Array.isArray(metrics) && metrics.length === 0)) {
    return { ok: true, request: { caseIds, evalConfig: defaultConfig } }
  }
  const parsed = z.array(EvalMetric).safeParse(metrics)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return { ok: false, error: `evalMetrics.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` }
  }
  // A metric without a criterion is a bare threshold, as a config file would write it. The
  // informational metrics are reported on every run and take no threshold: choosing one in the
  // dialog (an older bundle sends a threshold for it) asks for nothing more, so it is left out.
  const criteria = Object.fromEntries(
    (metrics as Record<string, unknown>[]).flatMap((m, i) => {
      const name = parsed.data[i]!.metric_name
      return ALWAYS_REPORTED.has(name) ? [] : [[name, m.criterion ?? parsed.data[i]!.threshold]]
    }),
  )
  return { ok: true, request: { caseIds, evalConfig: { criteria } } }
}

export type DevRunOutcome =
  | { ok: true; resultId: string; runEvalResults: Record<string, unknown>[] }
  | Failure

/**
 * Runs and stores; `runEvalResults` are snake_case (the route renames them).
 * @example const out = await runAndStore(deps, store, { app: 'weather_agent' }, evalSet, request)
 */
export async function runAndStore(
  deps: AppDeps,
  store: EvalSetStore,
  scope: EvalScope,
  evalSet: EvalSet,
  request: RunRequest,
  signal: AbortSignal,
): Promise<DevRunOutcome> {
  if (!deps.agentUrl) return failure('no_agent', 'No agent', 'this deployment has no AGENT_URL to run eval sets against')
  const report = await runEvalSets([{ evalSet, evalConfig: request.evalConfig, caseIds: request.caseIds, source: evalSet.eval_set_id }], {
    agent: { url: deps.agentUrl, app: scope.app, fetch: deps.fetch },
    createEngine: deps.createEngine,
    limits: deps.limits,
    parallel: DEV_RUN_PARALLEL,
    signal,
  })
  if (!report.ok) return failure('invalid_run', 'Invalid run', report.error)
  const result = report.sets[0]!.evalSetResult
  const json = evalSetResultJson(result)
  store.addResult(scope, { id: result.eval_set_result_id, evalSetId: evalSet.eval_set_id, json, createdMs: Date.now() })
  // The file shape has the statuses as numbers (1 passed, 2 failed, 3 not evaluated), as the UI reads them.
  const file = JSON.parse(json) as { eval_case_results: Record<string, unknown>[] }
  const runEvalResults = file.eval_case_results.map(forTheTab).map((c) => ({
    eval_set_file: c.eval_set_file,
    eval_set_id: evalSet.eval_set_id,
    eval_id: c.eval_id,
    final_eval_status: c.final_eval_status,
    overall_eval_metric_results: c.overall_eval_metric_results,
    eval_metric_result_per_invocation: c.eval_metric_result_per_invocation,
    user_id: c.user_id,
    session_id: c.session_id,
  }))
  return { ok: true, resultId: result.eval_set_result_id, runEvalResults }
}

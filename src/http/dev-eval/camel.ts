/**
 * The JSON the ADK web UI reads: ADK's api_server answers with pydantic's `by_alias` dump
 * (camelCase field names, `response_model_exclude_none=True`), and the UI reads `evalId`,
 * `finalEvalStatus`, `evalMetricResultPerInvocation`... Stored values are ADK's snake_case file
 * shape, so they are renamed on the way out.
 *
 * Only model fields are renamed: the values of free-form dicts (a tool call's `args`, a tool's
 * `response`, session `state`, the stored `session_details`) are user data and pass unchanged,
 * as pydantic leaves them. Walked with an explicit stack: no recursion on untrusted depth.
 */
import { toCamel } from '../../adk/casing.ts'
import { EVAL_STATUS_CODE } from '../../adk/status.ts'

/** Fields whose value is a free-form dict (or a whole stored object): copied as is. */
const FREE_FORM = new Set([
  'args',
  'response',
  'state',
  'final_session_state',
  'session_details',
  'custom_metadata',
  'state_delta',
  'artifact_delta',
])

type Job = { from: unknown; put: (value: unknown) => void; raw: boolean }

/**
 * @example camelJson({ eval_id: 'c', final_eval_status: 1, session_id: null }) // { evalId: 'c', finalEvalStatus: 1 }
 * @example camelJson({ tool_uses: [{ name: 'f', args: { city_name: 'Paris' } }] }) // { toolUses: [{ name: 'f', args: { city_name: 'Paris' } }] }
 */
export function camelJson(value: unknown): unknown {
  let root: unknown
  const stack: Job[] = [{ from: value, put: (v) => (root = v), raw: false }]
  while (stack.length > 0) {
    const { from, put, raw } = stack.pop()!
    if (raw || from === null || typeof from !== 'object') {
      put(from)
      continue
    }
    if (Array.isArray(from)) {
      const out: unknown[] = new Array(from.length)
      put(out)
      from.forEach((item, i) => stack.push({ from: item, put: (v) => (out[i] = v), raw: false }))
      continue
    }
    const out: Record<string, unknown> = {}
    put(out)
    for (const [key, item] of Object.entries(from as Record<string, unknown>)) {
      // exclude_none: absent and null model fields are left out, as ADK's server does.
      if (item === undefined || item === null) continue
      const name = toCamel(key)
      // Claim the key now so the output keeps the input's key order (the stack pops in reverse).
      out[name] = undefined
      stack.push({ from: item, put: (v) => (out[name] = v), raw: FREE_FORM.has(key) })
    }
  }
  return root
}

/** ADK's file status of a metric with a value and no verdict (the efficiency metrics). */
const INFORMATIONAL_CODE = EVAL_STATUS_CODE.INFORMATIONAL

type CaseFile = { overall_eval_metric_results?: unknown; eval_metric_result_per_invocation?: unknown }

/**
 * A case result as the Eval tab shows it: the UI counts every metric result that is not PASSED
 * (1) against the case ("2/6" in red for a case that passed), so metrics that only inform
 * (INFORMATIONAL, 4: token and call counts, durations) are left out of what it is sent. The
 * stored result keeps them.
 * @example forTheTab({ overall_eval_metric_results: [{ eval_status: 4 }, { eval_status: 1 }] }).overall_eval_metric_results // [{ eval_status: 1 }]
 */
export function forTheTab<T extends CaseFile>(caseResult: T): T {
  const judged = (list: unknown) =>
    Array.isArray(list) ? list.filter((m) => (m as { eval_status?: unknown } | null)?.eval_status !== INFORMATIONAL_CODE) : list
  const perInvocation = caseResult.eval_metric_result_per_invocation
  return {
    ...caseResult,
    overall_eval_metric_results: judged(caseResult.overall_eval_metric_results),
    eval_metric_result_per_invocation: Array.isArray(perInvocation)
      ? perInvocation.map((p: Record<string, unknown>) => ({ ...p, eval_metric_results: judged(p.eval_metric_results) }))
      : perInvocation,
  }
}

/**
 * Eval-set runs (POST /v1/runs, listed by GET /v1/runs): each run with its app, its verdict so far
 * and its cases with their status and reason. A run scores its cases itself (they are not
 * evalstream sessions), so a case names the agent's ADK session it ran in, as text.
 */
import { getJson } from './api.ts'
import { badge, h, replace } from './dom.ts'
import type { RunCase, RunList, RunSummary } from './wire.ts'

/** Runs shown at most (the server keeps at most 100 per process). */
const RUNS_SHOWN = 20

/** RUNNING while a case is open; then FAILED if any failed, NOT_EVALUATED if any was not, else PASSED. */
export function runStatus(run: RunSummary): string {
  if (!run.finished) return 'RUNNING'
  if (run.failed > 0) return 'FAILED'
  if (run.not_evaluated > 0) return 'NOT_EVALUATED'
  return 'PASSED'
}

function caseItem(c: RunCase): HTMLElement {
  const label = `${c.eval_set_id} / ${c.eval_id}${c.run > 0 ? ` (run ${c.run + 1})` : ''}`
  return h(
    'li',
    { 'data-eval-id': c.eval_id, 'data-status': c.status, title: c.reason },
    badge(c.status),
    ' ',
    label,
    c.session_id ? h('span', { class: 'muted' }, ` · agent session ${c.session_id}`) : null,
    c.reason ? h('div', { class: 'muted' }, c.reason) : null,
  )
}

function runItem(run: RunSummary): HTMLElement {
  const status = runStatus(run)
  return h(
    'li',
    { 'data-run-id': run.run_id, 'data-status': status },
    h('div', null, badge(status), ' ', h('span', { class: 'id' }, run.run_id)),
    h(
      'div',
      { class: 'muted' },
      `${run.app_name} · ${run.cases_done}/${run.cases.length} case(s) done · ${new Date(run.started_at).toLocaleTimeString()}`,
    ),
    h('ul', { class: 'cases' }, run.cases.map(caseItem)),
  )
}

/** Fetches the runs and draws them into `el`. */
export async function loadRuns(el: HTMLElement): Promise<void> {
  const list = await getJson<RunList>('/v1/runs')
  replace(el, list.runs.length ? list.runs.slice(0, RUNS_SHOWN).map(runItem) : h('li', { class: 'muted' }, 'no eval-set runs yet'))
}

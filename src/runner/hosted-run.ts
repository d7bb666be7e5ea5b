/**
 * A run hosted by a server (`POST /v1/runs`): the run's progress as a numbered event log that
 * clients stream and resume like a session's results (`id:` = seq, Last-Event-ID), ending with a
 * `run.result` event that carries the verdicts and ADK's EvalSetResults.
 *
 * Events (type: data): `run.started` {run_id, cases, units, invocations}; `case.started` and
 * `case.done` {eval_set_id, eval_id, run, status, reason?, session_id?}; `invocation.done`
 * {..., invocation_index}; `criterion.result` {eval_set_id, eval_id, run, ...the session's result};
 * `run.result` {run_id, passed, totals, cases, eval_set_results}.
 */
import { evalSetResultJson } from '../adk/results-json.ts'
import { planRun, type EvalSetInput, type RunOptions, type RunProgress, type RunReport } from './run-eval-set.ts'
import type { RunEvent, RunEventData, RunEventType } from './run-events.ts'

export type { RunEvent, RunEventType } from './run-events.ts'

export type HostedRun = {
  id: string
  /** Events with seq > after, in order. */
  readAfter(after: number): RunEvent[]
  /** Returns the function that unsubscribes. */
  subscribe(listener: (event: RunEvent) => void): () => void
  /** Settles when the run is over (its `run.result` is in the log). */
  done: Promise<RunReport>
  finished(): boolean
  /** Counts so far, for GET /v1/runs/{id}. */
  snapshot(): Record<string, unknown>
  abort(reason?: string): void
}

/**
 * @example
 * const started = startHostedRun('r1', [{ evalSet }], { agent: { url, app: 'weather_agent' } })
 * if (started.ok) started.run.subscribe((e) => console.log(e.type))
 */
export function startHostedRun(
  id: string,
  sets: EvalSetInput[],
  options: Omit<RunOptions, 'onProgress' | 'signal'>,
): { ok: true; run: HostedRun } | { ok: false; error: string } {
  const events: RunEvent[] = []
  const listeners = new Set<(event: RunEvent) => void>()
  const abort = new AbortController()
  const counts = { cases_done: 0, invocations_done: 0, failed: 0, not_evaluated: 0 }
  let finished = false
  const append = <T extends RunEventType>(type: T, data: RunEventData<T>) => {
    const event = { seq: events.length + 1, type, data } as RunEvent
    events.push(event)
    for (const listener of [...listeners]) {
      try {
        listener(event)
      } catch {
        // A broken subscriber must not stop the run.
        listeners.delete(listener)
      }
    }
  }
  const onProgress = (p: RunProgress) => {
    if (p.type === 'run.started') return append('run.started', { run_id: id, cases: p.cases, units: p.units, invocations: p.invocations })
    if (p.type === 'case.done') {
      const o = p.outcome
      counts.cases_done += 1
      if (o.status === 'FAILED') counts.failed += 1
      if (o.status === 'NOT_EVALUATED') counts.not_evaluated += 1
      return append('case.done', { ...unitOf(o), status: o.status, ...(o.reason ? { reason: o.reason } : {}), ...(o.sessionId ? { session_id: o.sessionId } : {}) })
    }
    if (p.type === 'case.started') return append('case.started', unitOf(p.unit))
    if (p.type === 'invocation.done') {
      counts.invocations_done += 1
      return append('invocation.done', { ...unitOf(p.unit), invocation_index: p.index })
    }
    if (p.body.type === 'criterion.result') append('criterion.result', { ...unitOf(p.unit), ...p.body.data })
  }
  const planned = planRun(sets, { ...options, onProgress, signal: abort.signal })
  if (!planned.ok) return planned
  const done = planned.start().then((report) => {
    finished = true
    append('run.result', report.ok ? resultData(id, report) : { run_id: id, error: report.error })
    return report
  })
  const run: HostedRun = {
    id,
    readAfter: (after) => events.slice(Math.max(0, after)),
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    done,
    finished: () => finished,
    snapshot: () => ({ run_id: id, finished, ...counts, last_seq: events.length }),
    abort: (reason = 'run cancelled') => abort.abort(reason),
  }
  return { ok: true, run }
}

function unitOf(unit: { evalSetId: string; evalId: string; run: number }) {
  return { eval_set_id: unit.evalSetId, eval_id: unit.evalId, run: unit.run }
}

function resultData(id: string, report: Extract<RunReport, { ok: true }>): RunEventData<'run.result'> {
  return {
    run_id: id,
    passed: report.passed,
    totals: report.totals,
    cases: report.sets.flatMap((s) =>
      s.cases.map((c) => ({ eval_set_id: c.evalSetId, eval_id: c.evalId, status: c.status, ...(c.reason ? { reason: c.reason } : {}), overall: c.overall })),
    ),
    // ADK's file shape (statuses 1/2/3), as `evalstream run --out` writes it.
    eval_set_results: report.sets.map((s) => JSON.parse(evalSetResultJson(s.evalSetResult)) as unknown),
  }
}

/**
 * A run hosted by a server (`POST /v1/runs`): the run's progress in a result log, the same kind
 * as a session's (src/session/result-log.ts), which clients stream and resume through the same
 * streamer (`id:` = seq, Last-Event-ID), ending with a `run.result` event that carries the
 * verdicts and ADK's EvalSetResults.
 *
 * Events (type: data): `run.started` {run_id, cases, units, invocations}; `case.started` and
 * `case.done` {eval_set_id, eval_id, run, status, reason?, session_id?}; `invocation.done`
 * {..., invocation_index}; `criterion.result` {eval_set_id, eval_id, run, ...the session's result};
 * `run.result` {run_id, passed, totals, cases, eval_set_results}.
 */
import { evalSetResultJson } from '../adk/results-json.ts'
import { createResultLog, memoryResultStorage, type ResultLog } from '../session/result-log.ts'
import { type EvalSetInput, planRun, type RunOptions, type RunProgress, type RunReport } from './run-eval-set.ts'
import type { RunEvent, RunEventData, RunEventType } from './run-events.ts'

export type { RunEvent, RunEventType } from './run-events.ts'

export type HostedRun = {
  id: string
  /** The run's progress, streamed like a session's results. */
  log: ResultLog<RunEventType>
  /** The seq of `run.result` once it is logged: where a stream of the log ends. */
  readonly endSeq: number | undefined
  /** Events with seq > after, in order. */
  readAfter(after: number): RunEvent[]
  /** Returns the function that unsubscribes. */
  subscribe(subscriber: (event: RunEvent) => void): () => void
  /** Settles when the run is over (its `run.result` is in the log). */
  done: Promise<RunReport>
  finished(): boolean
  /** Counts so far and each case as it stands, for GET /v1/runs and /v1/runs/{id}. */
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
  const log = createResultLog<RunEventType>(memoryResultStorage())
  const abort = new AbortController()
  const counts = { cases_done: 0, invocations_done: 0, failed: 0, not_evaluated: 0 }
  // Each case unit as it stands (RUNNING until done), for the run's snapshot: as many as the run
  // has units, which the run's own limits bound.
  const cases = new Map<string, CaseState>()
  const startedAt = new Date().toISOString()
  let finished = false
  let endSeq: number | undefined
  // The log tells its subscribers and drops a broken one, so a subscriber cannot stop the run.
  const append = (type: RunEventType, data: Record<string, unknown>) => log.append({ type, key: `${type}/${log.lastSeq() + 1}`, data })
  const onProgress = (p: RunProgress) => {
    if (p.type === 'run.started') return append('run.started', { run_id: id, cases: p.cases, units: p.units, invocations: p.invocations })
    if (p.type === 'case.done') {
      const o = p.outcome
      counts.cases_done += 1
      if (o.status === 'FAILED') counts.failed += 1
      if (o.status === 'NOT_EVALUATED') counts.not_evaluated += 1
      cases.set(unitKey(o), {
        ...unitOf(o),
        status: o.status,
        ...(o.reason ? { reason: o.reason } : {}),
        ...(o.sessionId ? { session_id: o.sessionId } : {}),
      })
      return append('case.done', {
        ...unitOf(o),
        status: o.status,
        ...(o.reason ? { reason: o.reason } : {}),
        ...(o.sessionId ? { session_id: o.sessionId } : {}),
      })
    }
    if (p.type === 'case.started') {
      cases.set(unitKey(p.unit), { ...unitOf(p.unit), status: 'RUNNING' })
      return append('case.started', unitOf(p.unit))
    }
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
    endSeq = append('run.result', report.ok ? resultData(id, report) : { run_id: id, error: report.error }).seq
    return report
  })
  const run: HostedRun = {
    id,
    log,
    get endSeq() {
      return endSeq
    },
    readAfter: (after) => log.readAfter(after).map(runEvent),
    subscribe: (subscriber) => log.subscribe((event) => subscriber(runEvent(event))),
    done,
    finished: () => finished,
    snapshot: () => ({
      run_id: id,
      app_name: options.agent.app,
      started_at: startedAt,
      finished,
      ...counts,
      last_seq: log.lastSeq(),
      cases: [...cases.values()],
    }),
    abort: (reason = 'run cancelled') => abort.abort(reason),
  }
  return { ok: true, run }
}

function runEvent(event: { seq: number; type: RunEventType; data: Record<string, unknown> }): RunEvent {
  // Only `append` below writes a run's log, with data of the event's own type.
  return { seq: event.seq, type: event.type, data: event.data } as RunEvent
}

type CaseState = { eval_set_id: string; eval_id: string; run: number; status: string; reason?: string; session_id?: string }

const unitKey = (unit: { evalSetId: string; evalId: string; run: number }) => `${unit.evalSetId}\u0000${unit.evalId}\u0000${unit.run}`

function unitOf(unit: { evalSetId: string; evalId: string; run: number }) {
  return { eval_set_id: unit.evalSetId, eval_id: unit.evalId, run: unit.run }
}

function resultData(id: string, report: Extract<RunReport, { ok: true }>): RunEventData<'run.result'> {
  return {
    run_id: id,
    passed: report.passed,
    totals: report.totals,
    cases: report.sets.flatMap((s) =>
      s.cases.map((c) => ({
        eval_set_id: c.evalSetId,
        eval_id: c.evalId,
        status: c.status,
        ...(c.reason ? { reason: c.reason } : {}),
        overall: c.overall,
      }))
    ),
    // ADK's file shape (statuses 1/2/3), as `evalstream run --out` writes it.
    eval_set_results: report.sets.map((s) => JSON.parse(evalSetResultJson(s.evalSetResult)) as unknown),
  }
}

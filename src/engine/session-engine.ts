/**
 * The live evaluation engine of one session. Events arrive one at a time; the engine groups them
 * into invocations (ADK's rules, src/core/invocation-builder.ts), pairs the n-th invocation with
 * the n-th expected one, feeds every configured criterion, and emits results the moment they are
 * known: early verdicts while the invocation runs, the final per-invocation result when it
 * completes, the case result when the session ends.
 *
 * An invocation completes when the next one begins, when its final response arrives, when the agent
 * closes its stream, or when the session ends. A final response can be followed by more events of
 * the same invocation (a sequential multi-agent run where several agents answer): the invocation
 * then reopens and its results are emitted again with `revision` increased; the last one counts.
 */
import type { AdkEvent } from '../adk/event.ts'
import type { Invocation } from '../adk/invocation.ts'
import type { InvocationScore } from '../core/criterion.ts'
import { createInvocationBuilder } from '../core/invocation-builder.ts'
import { statusFor } from '../adk/status.ts'
import { evalCaseResultValue } from '../adk/results-json.ts'
import { buildCaseResult, type MetricScores } from './case-result.ts'
import { MetricRun, settle, waitForJudges, type JudgeRunner } from './metric-run.ts'
import { planSession, rubricsForInvocation, withUserContent, type SessionPlan, type SpecProblem } from './spec.ts'
import type { EngineOptions, IngestedEvent, RejectedEvent, SessionEngine } from './types.ts'

/** How long `end()` waits for outstanding judge calls before reporting them NOT_EVALUATED. */
export const DEFAULT_END_WAIT_MS = 120_000

export type SessionEngineOptions = EngineOptions & {
  judge?: JudgeRunner
  /** Why judged criteria are NOT_EVALUATED when `judge` is absent (default: no judge configured). */
  noJudgeReason?: string
  /** The deployment default EvalConfig, used when the spec has none (ADK's defaults otherwise). */
  defaultConfig?: unknown
  endWaitMs?: number
}

type OpenInvocation = {
  index: number
  id: string
  runs: Array<MetricRun | null>
  /** Bumped when a completed invocation reopens, so stale judge answers are discarded. */
  generation: number
  completed: boolean
  /** Early verdicts emitted per metric, for their result keys. */
  progressCount: number[]
}

export function createSessionEngine(
  options: SessionEngineOptions,
): { ok: true; engine: SessionEngine } | ({ ok: false } & SpecProblem) {
  const planned = planSession(options.spec, options.defaultConfig)
  if (!planned.ok) return { ok: false, ...planned.problem }
  return { ok: true, engine: new LiveSession(planned.plan, options) }
}

class LiveSession implements SessionEngine {
  #plan: SessionPlan
  #options: SessionEngineOptions
  #builder = createInvocationBuilder()
  #open = new Map<string, OpenInvocation>()
  #order: OpenInvocation[] = []
  /** scores[metric][invocation index] */
  #scores: MetricScores
  #pending = new Set<Promise<void>>()
  #abort = new AbortController()
  #ended?: Record<string, unknown>
  #errors = 0

  constructor(plan: SessionPlan, options: SessionEngineOptions) {
    this.#plan = plan
    this.#options = options
    this.#scores = plan.metrics.map(() => [])
  }

  push({ event }: IngestedEvent): void {
    if (this.#ended) return
    const change = this.#builder.push(event)
    for (const id of change.completed ?? []) this.#complete(id)
    const invocationId = event.invocation_id ?? ''
    const open = this.#open.get(invocationId) ?? this.#start(invocationId)
    if (open.completed) this.#reopen(open)
    this.#step(open, event)
    if (change.final) this.#complete(invocationId)
  }

  reject(rejected: RejectedEvent): void {
    this.#errors += 1
    this.#options.emit({ type: 'error', key: `error/${this.#errors}`, data: { kind: 'rejected_event', ...rejected } })
  }

  completeInvocation(): void {
    for (const id of this.#builder.complete().completed ?? []) this.#complete(id)
  }

  async end(): Promise<Record<string, unknown>> {
    if (this.#ended) return this.#ended
    this.completeInvocation()
    await waitForJudges(this.#pending, this.#options.endWaitMs ?? DEFAULT_END_WAIT_MS, this.#abort)
    const { typed } = buildCaseResult({
      sessionId: this.#options.spec.session_id,
      plan: this.#plan,
      scores: this.#scores,
      actual: this.#builder.invocations(),
    })
    // Emitted and returned in ADK's file shape (statuses 1/2/3) so ADK tools read it as is.
    const result = evalCaseResultValue(typed)
    this.#ended = result
    this.#options.emit({ type: 'case.result', key: 'case', data: result })
    return result
  }

  snapshot(): Record<string, unknown> {
    return {
      session_id: this.#options.spec.session_id,
      ended: this.#ended !== undefined,
      metrics: this.#plan.metrics.map((m) => m.metric.metric_name),
      invocations: this.#order.map((open) => ({
        invocation_id: open.id,
        invocation_index: open.index,
        completed: open.completed,
        results: Object.fromEntries(
          this.#plan.metrics.map((m, i) => [m.metric.metric_name, this.#scores[i]![open.index] ?? null]),
        ),
      })),
      case_result: this.#ended ?? null,
    }
  }

  abort(reason = 'session aborted'): void {
    this.#abort.abort(reason)
  }

  #start(id: string): OpenInvocation {
    const index = this.#order.length
    const expected = this.#plan.expected?.[index]
    const caseRubrics = rubricsForInvocation(this.#plan, index)
    const runs = this.#plan.metrics.map((m) =>
      'reason' in m.runnable
        ? null
        : new MetricRun(m.runnable.criterion, {
            config: m.runnable.config,
            expected,
            caseRubrics,
            key: `${this.#options.spec.session_id}/${index}/${m.metric.metric_name}`,
          }),
    )
    const open: OpenInvocation = { index, id, runs, generation: 0, completed: false, progressCount: [] }
    this.#open.set(id, open)
    this.#order.push(open)
    this.#options.emit({
      type: 'invocation.started',
      key: `started/${index}`,
      data: { invocation_id: id, invocation_index: index },
    })
    return open
  }

  #step(open: OpenInvocation, event: AdkEvent): void {
    open.runs.forEach((run, i) => {
      const provisional = run?.step(event)
      if (!provisional) return
      const threshold = this.#plan.metrics[i]!.metric.threshold
      open.progressCount[i] = (open.progressCount[i] ?? 0) + 1
      this.#options.emit({
        type: 'criterion.progress',
        key: `progress/${open.index}/${i}/${open.progressCount[i]}`,
        data: {
          ...this.#identity(open, i),
          score: provisional.score,
          threshold,
          eval_status: statusFor(provisional.score, threshold),
          final: provisional.final,
          details: provisional.details ?? {},
        },
      })
    })
  }

  #reopen(open: OpenInvocation): void {
    open.completed = false
    open.generation += 1
  }

  #complete(id: string): void {
    const open = this.#open.get(id)
    if (!open || open.completed) return
    open.completed = true
    const built = this.#builder.invocation(id)
    if (!built) return
    const actual = withUserContent(built, this.#plan.expected?.[open.index])
    this.#plan.metrics.forEach((plan, i) => {
      const run = open.runs[i]
      if (!run) {
        this.#record(open, i, open.generation, { score: null, reason: (plan.runnable as { reason: string }).reason })
        return
      }
      const outcome = run.finish(actual)
      if (outcome.kind === 'score') {
        this.#record(open, i, open.generation, outcome.result)
        return
      }
      const generation = open.generation
      const work = settle(outcome, this.#options.judge, this.#abort.signal, this.#options.noJudgeReason).then((result) =>
        this.#record(open, i, generation, result),
      )
      this.#pending.add(work)
      void work.finally(() => this.#pending.delete(work))
    })
  }

  #record(open: OpenInvocation, metricIndex: number, generation: number, result: InvocationScore): void {
    if (generation !== open.generation || this.#ended) return
    this.#scores[metricIndex]![open.index] = result
    const threshold = this.#plan.metrics[metricIndex]!.metric.threshold
    this.#options.emit({
      type: 'criterion.result',
      key: `result/${open.index}/${metricIndex}/${generation}`,
      data: {
        ...this.#identity(open, metricIndex),
        score: result.score,
        threshold,
        eval_status: result.status ?? statusFor(result.score, threshold),
        details: result.details ?? {},
        ...(result.reason !== undefined ? { reason: result.reason } : {}),
        ...(generation > 0 ? { revision: generation } : {}),
      },
    })
  }

  #identity(open: OpenInvocation, metricIndex: number) {
    return {
      invocation_id: open.id,
      invocation_index: open.index,
      metric_name: this.#plan.metrics[metricIndex]!.metric.metric_name,
    }
  }
}

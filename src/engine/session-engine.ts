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
import type { EvalCaseResult } from '../adk/results.ts'
import { statusFor } from '../adk/status.ts'
import type { InvocationScore, InvocationTiming } from '../core/criterion.ts'
import { createInvocationBuilder } from '../core/invocation-builder.ts'
import { buildCaseResult } from './case-result.ts'
import {
  contextsFor,
  type InvocationState,
  MAX_REBUILD_EVENTS,
  type MetricSlot,
  newInvocationState,
  releaseRuns,
  reviveRuns,
  type SessionFacts,
} from './invocation-state.ts'
import { closingOutcome, type JudgeRunner, settle, waitForJudges } from './metric-run.ts'
import { CASE_KEY, errorKey, progressKey, resultKey, startedKey } from './result-keys.ts'
import { planSession, type SessionPlan, type SpecProblem, withUserContent } from './plan.ts'
import type { EngineOptions, IngestedEvent, RejectedEvent, SessionEngine, SessionSnapshot } from './types.ts'

/** How long `end()` waits for outstanding judge calls before reporting them NOT_EVALUATED. */
export const DEFAULT_END_WAIT_MS = 120_000

export type SessionEngineOptions = EngineOptions & {
  judge?: JudgeRunner
  /** Why judged criteria are NOT_EVALUATED when `judge` is absent (default: no judge configured). */
  noJudgeReason?: string
  /** The deployment default EvalConfig, used when the spec has none (ADK's defaults otherwise). */
  defaultConfig?: unknown
  /** What problems with the config are said to be in (default: `eval_config`); the CLI names its file. */
  configSource?: string
  endWaitMs?: number
}

/**
 * @example
 * const created = createSessionEngine({ spec: { session_id: 's', eval_case }, emit: (body) => log.push(body) })
 * if (created.ok) { for (const item of decoded.events) created.engine.push(item); await created.engine.end() }
 */
export function createSessionEngine(
  options: SessionEngineOptions,
): { ok: true; engine: SessionEngine } | { ok: false; problem: SpecProblem } {
  const planned = planSession(options.spec, options.defaultConfig, { configSource: options.configSource })
  if (!planned.ok) return planned
  return { ok: true, engine: new LiveSession(planned.plan, options) }
}

class LiveSession implements SessionEngine {
  #plan: SessionPlan
  #options: SessionEngineOptions
  /** What criterion contexts are built from, for new runs and rebuilt ones alike. */
  #facts: SessionFacts
  #builder = createInvocationBuilder()
  #byId = new Map<string, InvocationState>()
  /** Every invocation in first-seen order: `#order[n].index === n`. */
  #order: InvocationState[] = []
  #pending = new Set<Promise<void>>()
  #abort = new AbortController()
  #ended?: EvalCaseResult
  #errors = 0
  /** Scoring time spent so far (by the budget's clock), and whether a budget ran out. */
  #cpuMs = 0
  #outOfBudget = false

  constructor(plan: SessionPlan, options: SessionEngineOptions) {
    this.#plan = plan
    this.#options = options
    this.#facts = {
      plan,
      sessionId: options.spec.session_id,
      previous: (index) => this.#order.slice(0, index).flatMap((s) => this.#builder.invocation(s.id) ?? []),
    }
  }

  push(item: IngestedEvent): void {
    if (this.#ended || this.#outOfBudget) return
    const clock = this.#options.budget?.clock
    const started = clock?.()
    this.#score(item.event)
    if (started !== undefined) this.#charge(item.index, clock!() - started)
  }

  /** Count an event's scoring time; past a budget, say so once and stop scoring. */
  #charge(index: number, spentMs: number): void {
    const budget = this.#options.budget!
    this.#cpuMs += spentMs
    const eventOver = spentMs > budget.maxEventCpuMs
    if (!eventOver && this.#cpuMs <= budget.maxSessionCpuMs) return
    this.#outOfBudget = true
    this.#errors += 1
    const [name, value] = eventOver
      ? [budget.names?.event ?? 'maxEventCpuMs', budget.maxEventCpuMs]
      : [budget.names?.session ?? 'maxSessionCpuMs', budget.maxSessionCpuMs]
    const what = eventOver
      ? `event ${index} took ${round(spentMs)} ms to score`
      : `scoring took ${round(this.#cpuMs)} ms in total by event ${index}`
    this.#options.emit({
      type: 'error',
      key: errorKey(this.#errors),
      data: {
        kind: 'cpu_budget_exhausted',
        index,
        message: `${what}, more than the ${value} ms allowed (${name}); later events are recorded but not scored`,
        limit: { name: name.split('=')[0]!, value },
        spent_ms: round(eventOver ? spentMs : this.#cpuMs),
      },
    })
  }

  #score(event: AdkEvent): void {
    const change = this.#builder.push(event)
    this.#completeAndRelease(change.completed)
    const invocationId = event.invocation_id ?? ''
    const invocation = this.#byId.get(invocationId) ?? this.#start(invocationId)
    if (invocation.completed) this.#reopen(invocation)
    this.#step(invocation, event)
    if (change.final) this.#complete(invocationId)
  }

  reject(rejected: RejectedEvent): void {
    this.#errors += 1
    this.#options.emit({ type: 'error', key: errorKey(this.#errors), data: { kind: 'rejected_event', ...rejected } })
  }

  completeInvocation(): void {
    this.#completeAndRelease(this.#builder.complete().completed)
  }

  /**
   * Invocations the builder completed (a newer one started, or the stream ended) are scored, then
   * their criteria's runs dropped: only a late event needs them again, and it rebuilds them. Judge
   * work in flight needs no run: its result goes to the slot.
   */
  #completeAndRelease(ids: readonly string[] | undefined): void {
    for (const id of ids ?? []) {
      this.#complete(id)
      const invocation = this.#byId.get(id)
      if (invocation) releaseRuns(invocation)
    }
  }

  async end(): Promise<EvalCaseResult> {
    if (this.#ended) return this.#ended
    this.completeInvocation()
    await waitForJudges(this.#pending, this.#options.endWaitMs ?? DEFAULT_END_WAIT_MS, this.#abort)
    if (this.#ended) return this.#ended // a concurrent end() finished first
    await this.#close()
    if (this.#ended) return this.#ended
    const result = buildCaseResult({
      sessionId: this.#options.spec.session_id,
      plan: this.#plan,
      invocations: this.#order,
      actual: this.#builder.invocations(),
    })
    this.#ended = result
    this.#options.emit({ type: 'case.result', key: CASE_KEY, data: result })
    return result
  }

  snapshot(): SessionSnapshot {
    return {
      session_id: this.#options.spec.session_id,
      ended: this.#ended !== undefined,
      metrics: this.#plan.metrics.map((m) => m.metric.metric_name),
      invocations: this.#order.map((invocation) => ({
        invocation_id: invocation.id,
        invocation_index: invocation.index,
        completed: invocation.completed,
        results: Object.fromEntries(invocation.slots.map((slot) => [slot.plan.metric.metric_name, slot.score ?? null])),
      })),
      case_result: this.#ended ?? null,
    }
  }

  abort(reason = 'session aborted'): void {
    this.#abort.abort(reason)
  }

  /**
   * Criteria with a closing step (a judgement over the whole conversation) may revise the last
   * invocation's result once the session ends; a changed result is emitted as a new revision.
   */
  async #close(): Promise<void> {
    const last = this.#order.at(-1)
    if (!last?.completed || !last.slots.some((slot) => hasClosing(slot))) return
    const invocations = this.#order.flatMap((s) => this.#builder.invocation(s.id) ?? [])
    const contexts = contextsFor(this.#facts, last.index)
    const closings = last.slots.flatMap((slot) => {
      const before = slot.score
      const run = contexts(slot.plan)
      const outcome = before && run && closingOutcome(run.criterion, run.context, invocations, before)
      return outcome ? [{ slot, before, outcome }] : []
    })
    if (closings.length === 0) return
    const settled = closings.map(async (c) => ({
      ...c,
      after: await settle(c.outcome, this.#options.judge, this.#abort.signal, this.#options.noJudgeReason),
    }))
    const pending = new Set(settled.map((p) => p.then(() => {})))
    await waitForJudges(pending, this.#options.endWaitMs ?? DEFAULT_END_WAIT_MS, this.#abort)
    const changed = (await Promise.all(settled)).filter((c) => c.after !== c.before)
    if (changed.length === 0) return
    last.generation += 1
    for (const c of changed) this.#record(last, c.slot, last.generation, c.after)
  }

  #start(id: string): InvocationState {
    const invocation = newInvocationState(this.#facts, this.#order.length, id)
    invocation.firstEventAtMs = this.#options.clock?.()
    this.#byId.set(id, invocation)
    this.#order.push(invocation)
    this.#options.emit({
      type: 'invocation.started',
      key: startedKey(invocation.index),
      data: { invocation_id: id, invocation_index: invocation.index },
    })
    return invocation
  }

  #step(invocation: InvocationState, event: AdkEvent): void {
    reviveRuns(this.#facts, invocation)
    if (invocation.events && invocation.events.length >= MAX_REBUILD_EVENTS) invocation.events = undefined
    invocation.events?.push(event)
    for (const slot of invocation.slots) {
      const provisional = slot.run?.step(event, slot)
      if (!provisional) continue
      const { threshold, metric_name } = slot.plan.metric
      slot.progressCount += 1
      this.#options.emit({
        type: 'criterion.progress',
        key: progressKey(invocation.index, metric_name, slot.progressCount),
        data: {
          ...identity(invocation, slot),
          score: provisional.score,
          threshold,
          eval_status: statusFor(provisional.score, threshold),
          final: provisional.final,
          details: provisional.details ?? {},
        },
      })
    }
  }

  #reopen(invocation: InvocationState): void {
    invocation.completed = false
    invocation.generation += 1
  }

  judgesSettled(): Promise<void> {
    return Promise.allSettled([...this.#pending]).then(() => undefined)
  }

  #complete(id: string): void {
    const invocation = this.#byId.get(id)
    if (!invocation || invocation.completed) return
    invocation.completed = true
    const built = this.#builder.invocation(id)
    if (!built) return
    const actual = withUserContent(built, this.#plan.expected?.[invocation.index])
    const generation = invocation.generation
    const timing = this.#timing(invocation)
    const ruledOut = this.#options.unscorable?.(id)
    for (const slot of invocation.slots) {
      const { plan } = slot
      if ('reason' in plan.runnable) {
        this.#record(invocation, slot, generation, { score: null, reason: plan.runnable.reason })
        continue
      }
      const unscorable = ruledOut?.get(plan.metric.metric_name)
      if (unscorable !== undefined) {
        this.#record(invocation, slot, generation, { score: null, reason: unscorable })
        continue
      }
      // Runnable, on an invocation that is not complete yet, so not released: its run is there.
      const outcome = slot.run!.finish(actual, timing)
      if (outcome.kind === 'score') {
        this.#record(invocation, slot, generation, outcome.result)
        continue
      }
      const work = settle(outcome, this.#options.judge, this.#abort.signal, this.#options.noJudgeReason).then((result) =>
        this.#record(invocation, slot, generation, result)
      )
      this.#pending.add(work)
      void work.finally(() => this.#pending.delete(work))
    }
  }

  /** First event to now, by the clock; none without a clock. */
  #timing(invocation: InvocationState): InvocationTiming | undefined {
    const { clock } = this.#options
    if (!clock || invocation.firstEventAtMs === undefined) return undefined
    return { durationMs: clock() - invocation.firstEventAtMs }
  }

  #record(invocation: InvocationState, slot: MetricSlot, generation: number, result: InvocationScore): void {
    if (generation !== invocation.generation || this.#ended) return
    slot.score = result
    const { threshold, metric_name } = slot.plan.metric
    this.#options.emit({
      type: 'criterion.result',
      key: resultKey(invocation.index, metric_name, generation),
      data: {
        ...identity(invocation, slot),
        score: result.score,
        threshold,
        eval_status: result.status ?? statusFor(result.score, threshold),
        details: result.details ?? {},
        ...(result.reason !== undefined ? { reason: result.reason } : {}),
        ...(generation > 0 ? { revision: generation } : {}),
      },
    })
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10
}

function hasClosing(slot: MetricSlot): boolean {
  return 'criterion' in slot.plan.runnable && slot.plan.runnable.criterion.closing !== undefined
}

function identity(invocation: InvocationState, slot: MetricSlot) {
  return { invocation_id: invocation.id, invocation_index: invocation.index, metric_name: slot.plan.metric.metric_name }
}

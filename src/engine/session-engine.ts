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
import type { EvalCaseResult } from '../adk/results.ts'
import type { InvocationScore } from '../core/criterion.ts'
import { createInvocationBuilder, type InvocationBuilder } from '../core/invocation-builder.ts'
import { buildCaseResult } from './case-result.ts'
import { budgetExceeded } from './cpu-budget.ts'
import {
  finishSlot,
  type InvocationState,
  keepForRebuild,
  type MetricSlot,
  newInvocationState,
  releaseRuns,
  reviveRuns,
  type SessionFacts,
  timingOf,
} from './invocation-state.ts'
import { closingRevisions } from './closing.ts'
import { conversationInvocations, forgetEvents, recallEvents } from './conversation.ts'
import { settle, waitForJudges } from './metric-run.ts'
import { CASE_KEY, errorKey, startedKey } from './result-keys.ts'
import { criterionResult, progressResult, resultsSnapshot } from './slot-results.ts'
import { planSession, type SessionPlan, type SpecProblem, withUserContent } from './plan.ts'
import { compactVerdicts, expandVerdicts, scoreTable, seqTable, snapshotScore } from './verdicts.ts'
import type { IngestedEvent, RejectedEvent, SessionEngine, SessionEngineOptions, SessionSnapshot } from './types.ts'

/** How long `end()` waits for outstanding judge calls before reporting them NOT_EVALUATED. */
export const DEFAULT_END_WAIT_MS = 120_000

export type { SessionEngineOptions } from './types.ts'

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
  // Made on first use: an idle session (created, no event yet) holds none of them.
  #builtBuilder?: InvocationBuilder
  #ids?: Map<string, InvocationState>
  #judging?: Set<Promise<void>>
  /** Every invocation in first-seen order: `#order[n].index === n`. */
  #order: InvocationState[] = []
  #abort = new AbortController()
  #ended?: EvalCaseResult
  /** The results the case result was built from: final once ended, so a snapshot takes them without reading them back again. */
  #endScores?: Array<Array<InvocationScore | undefined>>
  #errors = 0
  /** Scoring time spent so far (by the budget's clock), and whether a budget ran out. */
  #cpuMs = 0
  #outOfBudget = false
  /** Events pushed so far: how many of the host's conversation the engine has seen. */
  #pushed = 0
  /** Completed invocations let their events go (the host reads them back: conversation.ts). */
  #forgets: boolean
  /** Completed invocations keep only their results' seqs (the host logs them: verdicts.ts). */
  #compacts: boolean
  /** `end()` began: nothing is compacted any more, the engine is about to be let go. */
  #ending = false

  get #builder(): InvocationBuilder {
    return (this.#builtBuilder ??= createInvocationBuilder())
  }
  get #byId(): Map<string, InvocationState> {
    return (this.#ids ??= new Map())
  }
  get #pending(): Set<Promise<void>> {
    return (this.#judging ??= new Set())
  }

  constructor(plan: SessionPlan, options: SessionEngineOptions) {
    this.#plan = plan
    this.#options = options
    this.#facts = {
      plan,
      sessionId: options.spec.session_id,
      previous: (index) => this.#order.slice(0, index).flatMap((s) => this.#builder.invocation(s.id) ?? []),
    }
    this.#forgets = options.conversation !== undefined &&
      !plan.metrics.some((m) => 'criterion' in m.runnable && m.runnable.criterion.readsPrevious === true)
    this.#compacts = options.loggedResults !== undefined
  }

  push(item: IngestedEvent): void {
    this.#pushed += 1
    if (this.#ended || this.#outOfBudget) return
    const clock = this.#options.budget?.clock
    const started = clock?.()
    this.#score(item.event)
    if (started !== undefined) this.#charge(item.index, clock!() - started)
  }

  /** Count an event's scoring time; past a budget, say so once and stop scoring. */
  #charge(index: number, spentMs: number): void {
    this.#cpuMs += spentMs
    const exceeded = budgetExceeded(this.#options.budget!, index, spentMs, this.#cpuMs)
    if (!exceeded) return
    this.#outOfBudget = true
    this.#errors += 1
    this.#options.emit({ type: 'error', key: errorKey(this.#errors), data: exceeded })
  }

  #score(event: AdkEvent): void {
    const invocationId = event.invocation_id ?? ''
    const known = this.#ids?.get(invocationId)
    if (known?.forgotten) {
      // A late event of an invocation whose events were let go: read them back first.
      recallEvents(this.#options.conversation!, this.#pushed - 1, known, this.#builder)
    }
    const change = this.#builder.push(event)
    this.#completeAndRelease(change.completed)
    // Completing others neither adds nor removes an id: the lookup above still holds.
    const invocation = known ?? this.#start(invocationId)
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
      if (!invocation) continue
      releaseRuns(invocation)
      if (this.#forgets && forgetEvents(invocation, this.#builder)) this.#options.eventsLetGo?.(id)
      this.#compact(invocation)
    }
  }

  #compact(invocation: InvocationState): void {
    if (this.#compacts && !this.#ending) compactVerdicts(invocation)
  }

  #expand(invocation: InvocationState): MetricSlot[] {
    return expandVerdicts(invocation, this.#plan, this.#options.loggedResults)
  }

  /** Every invocation as built from the events: read back from the host when some were let go. */
  #actualInvocations(): Invocation[] {
    return this.#builder.forgottenCount() > 0
      ? conversationInvocations(this.#options.conversation!, this.#pushed)
      : this.#builder.invocations()
  }

  async end(): Promise<EvalCaseResult> {
    if (this.#ended) return this.#ended
    this.#ending = true
    this.completeInvocation()
    await waitForJudges(this.#pending, this.#options.endWaitMs ?? DEFAULT_END_WAIT_MS, this.#abort)
    if (this.#ended) return this.#ended // a concurrent end() finished first
    let actual: Invocation[] | undefined
    const all = () => (actual ??= this.#actualInvocations())
    await this.#close(all)
    if (this.#ended) return this.#ended
    const scores = scoreTable(this.#order, this.#options.loggedResults)
    const result = buildCaseResult({ sessionId: this.#options.spec.session_id, plan: this.#plan, scores, actual: all() })
    this.#ended = result
    this.#endScores = scores
    this.#options.emit({ type: 'case.result', key: CASE_KEY, data: result })
    return result
  }

  snapshot(withResults = true): SessionSnapshot {
    const scores = withResults ? (this.#endScores ?? scoreTable(this.#order, this.#options.loggedResults)) : undefined
    return resultsSnapshot(this.#options.spec.session_id, this.#plan, this.#order, scores, this.#ended)
  }

  resultSeqs(): Int32Array | undefined {
    return seqTable(this.#order, this.#plan.metrics.length)
  }

  abort(reason = 'session aborted'): void {
    this.#abort.abort(reason)
  }

  /**
   * Criteria with a closing step (a judgement over the whole conversation) may revise the last
   * invocation's result once the session ends; a changed result is emitted as a new revision.
   */
  async #close(all: () => Invocation[]): Promise<void> {
    const last = this.#order.at(-1)
    if (!last?.completed) return
    this.#expand(last)
    const changed = await closingRevisions(this.#facts, last, all, {
      judge: this.#options.judge,
      noJudgeReason: this.#options.noJudgeReason,
      waitMs: this.#options.endWaitMs ?? DEFAULT_END_WAIT_MS,
      abort: this.#abort,
    })
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
    // A late event of a compacted invocation reads its results back here; any other holds its slots.
    const slots = this.#expand(invocation)
    reviveRuns(this.#facts, invocation)
    keepForRebuild(invocation, event)
    let ruledOut: ReadonlyMap<string, string> | undefined | null = null
    for (const slot of slots) {
      const provisional = slot.run?.step(event, slot)
      if (!provisional) continue
      // A metric ruled out for this invocation (content not captured) gives no early score either:
      // it would score what was never seen. Asked only when there is a score to emit.
      if (ruledOut === null) ruledOut = this.#options.unscorable?.(invocation.id)
      if (ruledOut?.has(slot.plan.metric.metric_name)) continue
      slot.progressCount += 1
      this.#options.emit(progressResult(invocation, slot, provisional))
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
    const timing = timingOf(invocation, this.#options.clock)
    const ruledOut = this.#options.unscorable?.(id)
    // A completing invocation is not compacted (only a completed one is): its slots are there.
    for (const slot of invocation.slots!) {
      const outcome = finishSlot(slot, actual, timing, ruledOut)
      if (outcome.kind === 'score') {
        this.#record(invocation, slot, generation, outcome.result)
        continue
      }
      invocation.judging += 1
      const work = settle(outcome, this.#options.judge, this.#abort.signal, this.#options.noJudgeReason).then((result) => {
        try {
          this.#record(invocation, slot, generation, result)
        } finally {
          invocation.judging -= 1
        }
        this.#compact(invocation)
      })
      this.#pending.add(work)
      void work.finally(() => this.#pending.delete(work))
    }
  }

  #record(invocation: InvocationState, slot: MetricSlot, generation: number, result: InvocationScore): void {
    if (generation !== invocation.generation || this.#ended) return
    // A reopened invocation that scores exactly as before has nothing to revise: its logged result
    // stands (an agent whose every event reads as a final response would otherwise log each
    // metric's result again per event, and a webhook would deliver the same failure again).
    const threshold = slot.plan.metric.threshold
    const unchanged = generation > 0 && slot.score !== undefined &&
      sameScore(snapshotScore(slot.score, threshold), snapshotScore(result, threshold))
    slot.score = result
    if (unchanged) return
    const seq = this.#options.emit(criterionResult(invocation, slot, generation, result))
    slot.seq = typeof seq === 'number' ? seq : undefined
  }
}

/**
 * Whether two scores, as the snapshot shows them (status resolved, details an object: the same for a
 * score held and one read back from the log), are the same result, the revision number aside.
 */
function sameScore(a: InvocationScore, b: InvocationScore): boolean {
  return Object.is(a.score, b.score) && a.status === b.status && a.reason === b.reason &&
    (a.details === b.details || JSON.stringify(a.details) === JSON.stringify(b.details))
}

/**
 * What the engine keeps per invocation: one slot per configured metric, holding everything about
 * that (invocation, metric) pair together (the criterion's run, the early verdicts given, the
 * latest result), so nothing is looked up by metric index across parallel arrays.
 *
 * A completed invocation is most of a live session's heap if it keeps its criteria's runs, and
 * only a late event needs them again. So once the engine is done with it (`releaseRuns`), its
 * slots keep just the result and the early-verdict bookkeeping, and its events; a late event gets
 * new runs built from the plan and fed those events again (`reviveRuns`).
 */
import type { AdkEvent } from '../adk/event.ts'
import type { Invocation } from '../adk/invocation.ts'
import type { AnyCriterion, InvocationContext, InvocationScore, InvocationTiming, Outcome } from '../core/criterion.ts'
import { MetricRun, type ProgressMemo } from './metric-run.ts'
import { type MetricPlan, rubricsForInvocation, type SessionPlan } from './plan.ts'

/**
 * An invocation of at most this many events keeps them to rebuild its criteria's runs, which are
 * then dropped once it is done; a longer one keeps its runs instead (no memory growth per event
 * beyond what the criteria fold, and no long replay on a late event).
 */
export const MAX_REBUILD_EVENTS = 256

export type MetricSlot = ProgressMemo & {
  plan: MetricPlan
  /**
   * The criterion on this invocation; null when the metric cannot be evaluated at all, and while
   * the invocation is released (a late event builds it again).
   */
  run: MetricRun | null
  /** Early verdicts emitted so far: the last number used in a progress key. */
  progressCount: number
  /** The latest result; undefined until the invocation first completes (or its judges answer). */
  score: InvocationScore | undefined
  /** The seq the host logged `score` under (`EngineOptions.emit` returned it); undefined without one. */
  seq: number | undefined
}

/**
 * A completed invocation's slots folded into a verdict record (verdicts.ts): per metric, in config
 * order, three entries: the seq of its latest result in the host's log (-1 for none), how many
 * early verdicts it reported, and the last one (`ProgressMemo.lastProgress`). One flat array:
 * about 200 bytes for six metrics, where the slots took 1-2 KiB.
 */
export type Verdicts = Array<number | string | null | undefined>

export type InvocationState = {
  /** Position in first-seen order: pairs it with the n-th expected invocation. */
  index: number
  id: string
  /** Bumped when a completed invocation reopens, so stale judge answers are discarded. */
  generation: number
  completed: boolean
  /** When its first event arrived, by the engine's clock (absent without one). */
  firstEventAtMs?: number
  /**
   * In config order, one per metric of the plan; undefined while they are folded into `verdicts`
   * (verdicts.ts: the engine was done with the invocation and the host logs its results).
   */
  slots: MetricSlot[] | undefined
  verdicts: Verdicts | undefined
  /** Judge work running for it: an invocation being judged is not compacted. */
  judging: number
  /**
   * Every event stepped, in order: what rebuilds released criterion runs if a late event comes.
   * Undefined once there were more than MAX_REBUILD_EVENTS: such an invocation keeps its runs.
   */
  events: AdkEvent[] | undefined
  /** The criteria's runs were dropped (the invocation was superseded or the stream ended). */
  released: boolean
  /**
   * Its events were let go too (conversation.ts): the host keeps them, and a late event reads them
   * back. Only ever true while `released`.
   */
  forgotten: boolean
}

/** A runnable metric's criterion and what it is given on one invocation. */
export type RunContext = { criterion: AnyCriterion; context: InvocationContext<{ threshold: number | null }> }

/** What the engine knows of the session, to build an invocation's criterion contexts. */
export type SessionFacts = {
  plan: SessionPlan
  sessionId: string
  /** The session's invocations before the n-th one, as built when asked. */
  previous?: (index: number) => readonly Invocation[]
}

/**
 * A fresh invocation: each runnable metric's criterion initialised with the n-th expected
 * invocation and the rubrics that apply to it.
 * @example const state = newInvocationState({ plan, sessionId: 'session-1' }, 0, 'e-1'); state.slots.length === plan.metrics.length
 */
export function newInvocationState(session: SessionFacts, index: number, id: string): InvocationState {
  const contexts = contextsFor(session, index)
  const slots = session.plan.metrics.map((metric): MetricSlot => {
    const context = contexts(metric)
    const run = context ? new MetricRun(context.criterion, context.context) : null
    return { plan: metric, run, progressCount: 0, lastProgress: undefined, score: undefined, seq: undefined }
  })
  // Every field from the start, the first event's time too: a property added later goes to a
  // separate backing store, 40 bytes more per invocation.
  return {
    index,
    id,
    generation: 0,
    completed: false,
    firstEventAtMs: undefined,
    slots,
    verdicts: undefined,
    judging: 0,
    events: [],
    released: false,
    forgotten: false,
  }
}

/** From the invocation's first event to now, by the engine's clock; none without a clock. */
export function timingOf(invocation: InvocationState, clock: (() => number) | undefined): InvocationTiming | undefined {
  if (!clock || invocation.firstEventAtMs === undefined) return undefined
  return { durationMs: clock() - invocation.firstEventAtMs }
}

/** Keeps a stepped event for a rebuild, until the invocation has more than MAX_REBUILD_EVENTS. */
export function keepForRebuild(invocation: InvocationState, event: AdkEvent): void {
  if (invocation.events && invocation.events.length >= MAX_REBUILD_EVENTS) invocation.events = undefined
  invocation.events?.push(event)
}

/**
 * Drops the criteria's runs of an invocation the engine is done with; slots keep the results and
 * which early verdicts were reported. An invocation that kept no events (too many) keeps its runs,
 * and so does a run whose criterion threw: a rebuild does not ask for early verdicts, so a throw
 * there would not happen again and the run would score where it had failed.
 */
export function releaseRuns(invocation: InvocationState): void {
  if (invocation.released || !invocation.events || !invocation.slots) return
  for (const slot of invocation.slots) if (slot.run && !slot.run.failed) slot.run = null
  // Kept for the session's life: cut to its length (an array grown by pushing has room for more).
  invocation.events = invocation.events.slice()
  invocation.released = true
}

/**
 * New runs for a released invocation, fed its events so far without reporting early verdicts (they
 * were reported when the events first came): each criterion's state is a fold of its context and
 * those events, so the invocation goes on as if it had never been released.
 */
export function reviveRuns(session: SessionFacts, invocation: InvocationState): void {
  if (!invocation.released || !invocation.slots) return
  const contexts = contextsFor(session, invocation.index)
  for (const slot of invocation.slots) {
    if (slot.run) continue
    const context = contexts(slot.plan)
    if (context) slot.run = MetricRun.replayed(context.criterion, context.context, invocation.events ?? [])
  }
  invocation.released = false
}

/**
 * The context each runnable metric's criterion sees on the n-th invocation (undefined for a metric
 * that cannot be evaluated): built the same way for a fresh run, a revived one and a closing step.
 */
export function contextsFor(session: SessionFacts, index: number): (metric: MetricPlan) => RunContext | undefined {
  const { plan, sessionId } = session
  const scenario = plan.evalCase?.conversation_scenario
  const expected = plan.expected?.[index]
  const caseRubrics = rubricsForInvocation(plan, index)
  const previous = session.previous && (() => session.previous!(index))
  return (metric: MetricPlan) => {
    const { runnable } = metric
    if ('reason' in runnable) return undefined
    const context: InvocationContext<{ threshold: number | null }> = {
      config: runnable.config,
      expected,
      caseRubrics,
      // Judge request ids derive from it: the same on replay, so cached answers are found again.
      key: `${sessionId}/${index}/${metric.metric.metric_name}`,
    }
    // Set when present, not spread from a one-key object made for the purpose (per metric and invocation).
    if (scenario) context.scenario = scenario
    if (previous) context.previous = previous
    return { criterion: runnable.criterion, context }
  }
}

/**
 * What a slot of a completing invocation gives: an outcome, a score now or judge work that gives
 * one later. A metric that cannot be evaluated, or that the source ruled out on this invocation
 * (`ruledOut`, by metric name, with the reason), is NOT_EVALUATED with its reason. Asked slot by
 * slot, in config order: no array of (slot, outcome) pairs is made per completed invocation.
 * @example for (const slot of invocation.slots!) record(slot, finishSlot(slot, actual, timing, undefined))
 */
export function finishSlot(
  slot: MetricSlot,
  actual: Invocation,
  timing: InvocationTiming | undefined,
  ruledOut: ReadonlyMap<string, string> | undefined,
): Outcome {
  const { plan } = slot
  if ('reason' in plan.runnable) return { kind: 'score', result: { score: null, reason: plan.runnable.reason } }
  const unscorable = ruledOut?.get(plan.metric.metric_name)
  if (unscorable !== undefined) return { kind: 'score', result: { score: null, reason: unscorable } }
  // Runnable, on an invocation that is not complete yet, so not released: its run is there.
  return slot.run!.finish(actual, timing)
}

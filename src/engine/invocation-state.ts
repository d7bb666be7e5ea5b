/**
 * What the engine keeps per invocation: one slot per configured metric, holding everything about
 * that (invocation, metric) pair together (the criterion's run, the early verdicts given, the
 * latest result), so nothing is looked up by metric index across parallel arrays.
 */
import type { AdkEvent } from '../adk/event.ts'
import type { Invocation } from '../adk/invocation.ts'
import type { InvocationScore } from '../core/criterion.ts'
import { MetricRun } from './metric-run.ts'
import { type MetricPlan, rubricsForInvocation, type SessionPlan } from './plan.ts'

/**
 * An invocation of at most this many events keeps them to rebuild its criteria's states, which
 * are then released once it is done; a longer one keeps its states instead (no memory growth per
 * event beyond what the criteria fold, and no long replay on a late event).
 */
export const MAX_REBUILD_EVENTS = 256

export type MetricSlot = {
  plan: MetricPlan
  /** The criterion on this invocation; null when the metric cannot be evaluated at all. */
  run: MetricRun | null
  /** Early verdicts emitted so far: the last number used in a progress key. */
  progressCount: number
  /** The latest result; undefined until the invocation first completes (or its judges answer). */
  score: InvocationScore | undefined
}

export type InvocationState = {
  /** Position in first-seen order: pairs it with the n-th expected invocation. */
  index: number
  id: string
  /** Bumped when a completed invocation reopens, so stale judge answers are discarded. */
  generation: number
  completed: boolean
  /** When its first event arrived, by the engine's clock (absent without one). */
  firstEventAtMs?: number
  /** In config order, one per metric of the plan. */
  slots: MetricSlot[]
  /**
   * Every event stepped, in order: what rebuilds released criterion states if a late event comes.
   * Undefined once there were more than MAX_REBUILD_EVENTS: such an invocation keeps its states.
   */
  events: AdkEvent[] | undefined
  /** The criteria's states were released (the invocation was superseded or the stream ended). */
  released: boolean
}

/**
 * A fresh invocation: each runnable metric's criterion initialised with the n-th expected
 * invocation and the rubrics that apply to it.
 * @example const state = newInvocationState(plan, 'session-1', 0, 'e-1'); state.slots.length === plan.metrics.length
 */
export function newInvocationState(
  plan: SessionPlan,
  sessionId: string,
  index: number,
  id: string,
  previous?: () => readonly Invocation[],
): InvocationState {
  const scenario = plan.evalCase?.conversation_scenario
  const expected = plan.expected?.[index]
  const caseRubrics = rubricsForInvocation(plan, index)
  const slots = plan.metrics.map((metric): MetricSlot => {
    const { runnable } = metric
    const run = 'reason' in runnable ? null : new MetricRun(runnable.criterion, {
      config: runnable.config,
      expected,
      caseRubrics,
      // Judge request ids derive from it: the same on replay, so cached answers are found again.
      key: `${sessionId}/${index}/${metric.metric.metric_name}`,
      ...(scenario ? { scenario } : {}),
      ...(previous ? { previous } : {}),
    })
    return { plan: metric, run, progressCount: 0, score: undefined }
  })
  return { index, id, generation: 0, completed: false, slots, events: [], released: false }
}

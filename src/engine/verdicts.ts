/**
 * A completed invocation's slots folded into a compact verdict record. Its results are in the
 * host's log already (a session's result log), and the slots held them a second time: the result
 * objects with their details (matched calls, token counts, rubric verdicts) were most of a live
 * session's heap once its events were let go. So once the engine is done with an invocation (runs
 * released, no judge working for it), it keeps per metric only the seq of its latest result and
 * which early verdicts it reported; the snapshot, the case result, a late event and a closing step
 * read the results back from the log (`EngineOptions.loggedResults`).
 *
 * A result read back has the fields the logged `criterion.result` carries: its status resolved and
 * its details an object. Every reader treats a score that way already (`status ?? statusFor(...)`,
 * `details?.x`), so the case result and the aggregates come out the same.
 */
import type { InvocationScore } from '../core/criterion.ts'
import { statusFor } from '../adk/status.ts'
import type { InvocationState, MetricSlot, Verdicts } from './invocation-state.ts'
import type { SessionPlan } from './plan.ts'
import type { CriterionResultData } from './result-events.ts'
import type { LoggedResults } from './types.ts'

/** Entries per metric in a verdict record (invocation-state.ts `Verdicts`). */
const FIELDS = 3

/**
 * Folds the invocation's slots into its verdict record, when the engine is done with it: its
 * criteria's runs released (none kept: a run whose criterion threw stays), no judge working for
 * it, and every result it has logged with a seq. Returns whether it did.
 * @example releaseRuns(invocation); compactVerdicts(invocation)
 */
export function compactVerdicts(invocation: InvocationState): boolean {
  const { slots } = invocation
  if (!slots || !invocation.released || invocation.judging > 0) return false
  const verdicts: Verdicts = new Array(slots.length * FIELDS)
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!
    const seq = seqOf(slot)
    if (slot.run !== null || seq === undefined) return false
    verdicts[i * FIELDS] = seq
    verdicts[i * FIELDS + 1] = slot.progressCount
    verdicts[i * FIELDS + 2] = slot.lastProgress
  }
  invocation.slots = undefined
  invocation.verdicts = verdicts
  return true
}

/**
 * The invocation's slots again, their results read back from the log, as they were before it was
 * compacted (runs released: a late event rebuilds them). The slots of one that is not compacted.
 * @example for (const slot of expandVerdicts(invocation, plan, read)) slot.score
 */
export function expandVerdicts(invocation: InvocationState, plan: SessionPlan, read: LoggedResults | undefined): MetricSlot[] {
  if (invocation.slots) return invocation.slots
  const verdicts = invocation.verdicts!
  const scores = scoreTable([invocation], read)[0]!
  invocation.slots = plan.metrics.map((metric, i): MetricSlot => {
    const seq = verdicts[i * FIELDS] as number
    return {
      plan: metric,
      run: null,
      progressCount: verdicts[i * FIELDS + 1] as number,
      lastProgress: verdicts[i * FIELDS + 2] as string | null | undefined,
      score: scores[i],
      seq: seq < 0 ? undefined : seq,
    }
  })
  invocation.verdicts = undefined
  return invocation.slots
}

/**
 * Each invocation's latest result per metric (undefined: none yet), compacted ones read back from
 * the log in one read.
 * @example overallScores(plan, scoreTable(invocations, read))
 */
export function scoreTable(
  invocations: readonly InvocationState[],
  read: LoggedResults | undefined,
): Array<Array<InvocationScore | undefined>> {
  const seqs: number[] = []
  for (const { verdicts } of invocations) {
    if (verdicts) { for (let i = 0; i < verdicts.length; i += FIELDS) seqs.push(verdicts[i] as number) }
  }
  // Only an engine given `loggedResults` compacts (session-engine.ts).
  const logged = seqs.length > 0 ? scoresAt(seqs, read!) : []
  let next = 0
  return invocations.map(({ slots, verdicts }) => {
    if (slots) return slots.map((slot) => slot.score)
    return Array.from({ length: verdicts!.length / FIELDS }, () => logged[next++])
  })
}

/**
 * The result logged under each seq (-1: none yet, undefined), in order, read back in one read: a
 * compacted invocation's, and an ended session's kept seqs.
 * @example scoresAt(engine.resultSeqs()!, read)[n * metrics + i]
 */
export function scoresAt(seqs: ArrayLike<number>, read: LoggedResults): Array<InvocationScore | undefined> {
  const wanted: number[] = []
  for (let i = 0; i < seqs.length; i++) if (seqs[i]! >= 0) wanted.push(seqs[i]!)
  const logged = wanted.length > 0 ? read(wanted) : new Map<number, CriterionResultData>()
  return Array.from(seqs, (seq) => (seq < 0 ? undefined : loggedScore(logged.get(seq))))
}

/**
 * A result as the snapshot shows it: the score fields of its `criterion.result` (status resolved,
 * details an object), the same for an invocation read back from the log and one still held.
 * @example snapshotScore({ score: 1 }, 0.5) // { score: 1, status: 'PASSED', details: {} }
 */
export function snapshotScore(result: InvocationScore, threshold: number | null): InvocationScore {
  return {
    score: result.score,
    status: result.status ?? statusFor(result.score, threshold),
    details: result.details ?? {},
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
  }
}

/**
 * The seq of each invocation's latest result per metric (-1: none), invocation after invocation:
 * what a host keeps of an ended session's results instead of the results. Undefined when some
 * result has no seq (a host whose `emit` returns none).
 * @example seqTable(invocations, plan.metrics.length)[n * metrics + i]
 */
export function seqTable(invocations: readonly InvocationState[], metrics: number): Int32Array | undefined {
  const table = new Int32Array(invocations.length * metrics)
  for (let n = 0; n < invocations.length; n++) {
    const { slots, verdicts } = invocations[n]!
    for (let i = 0; i < metrics; i++) {
      if (verdicts) {
        table[n * metrics + i] = verdicts[i * FIELDS] as number
        continue
      }
      const seq = seqOf(slots![i]!)
      if (seq === undefined) return undefined
      table[n * metrics + i] = seq
    }
  }
  return table
}

/** The seq of the slot's result in the log: -1 when it has none yet, undefined when it has one without a seq. */
function seqOf(slot: MetricSlot): number | undefined {
  return slot.score === undefined ? -1 : slot.seq
}

/**
 * A logged result as a score, in the snapshot's form. One the log no longer has (its session was
 * deleted while this read was on its way) is NOT_EVALUATED with the reason, not a crash.
 * @example loggedScore(event.data as CriterionResultData).status // the logged eval_status
 */
export function loggedScore(data: CriterionResultData | undefined): InvocationScore {
  if (!data) return { score: null, status: 'NOT_EVALUATED', details: {}, reason: 'the result is no longer in the session log' }
  return {
    score: data.score,
    status: data.eval_status,
    details: data.details,
    ...(data.reason !== undefined ? { reason: data.reason } : {}),
  }
}

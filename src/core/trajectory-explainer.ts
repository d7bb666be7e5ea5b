/**
 * explainTrajectory, kept up to date as an invocation's calls grow. A live invocation is scored
 * again each time a final response completes it, with every call so far; explaining from scratch
 * each time costs O(calls) per completion, so O(calls²) for one long invocation. This keeps the
 * pairing and takes only the calls added since the last look: O(new calls) (ANY_ORDER finds a call's pair by key, call-key.ts).
 *
 * It gives what explainTrajectory gives for the same calls (a differential test checks it on
 * random growing sequences), because each match type pairs greedily in a way a new call at the end
 * never undoes:
 * - EXACT pairs by position;
 * - IN_ORDER lets each expected call take the first equal call after the previous pairing;
 * - ANY_ORDER lets each expected call, in order, take the first equal unused call. Fed one call at
 *   a time, a new call goes to the first still missing expected call it equals: an expected call
 *   already paired keeps the earlier call it had, and among missing ones the lowest index chooses
 *   first, as the batch loop lets it.
 */
import { bucketCalls, type CallBuckets, type CallKeyer, createCallKeyer, takeFirstEqual } from './call-key.ts'
import { callsEqual, type MatchOptions, type MatchType, type ToolCall } from './trajectory.ts'

export type TrajectoryExplainer = {
  readonly expected: readonly ToolCall[]
  readonly matchType: MatchType
  readonly options: MatchOptions
  /** The calls explained so far (their count, and the last one, to tell growth from a new list). */
  seen: number
  last: ToolCall | undefined
  /** Actual index paired with each expected call, or -1. */
  pairOf: Int32Array
  /** Expected calls paired so far; IN_ORDER: also the next expected call to look for. */
  paired: number
  /** Actual indices left unpaired, in order. */
  extra: number[]
  /** ANY_ORDER only: still missing expected calls by call key (built on first use), so a new call is one lookup. */
  missing: { keyer: CallKeyer; buckets: CallBuckets } | undefined
}

/** @example const x = createTrajectoryExplainer(expected, 'IN_ORDER'); explainGrowing(x, calls) */
export function createTrajectoryExplainer(
  expected: readonly ToolCall[],
  matchType: MatchType,
  options: MatchOptions = {},
): TrajectoryExplainer {
  return {
    expected,
    matchType,
    options,
    seen: 0,
    last: undefined,
    pairOf: new Int32Array(expected.length).fill(-1),
    paired: 0,
    extra: [],
    missing: undefined,
  }
}

/**
 * The explanation for `calls`, which should be the calls explained last time plus new ones at the
 * end; any other list (shorter, or another first part) is explained from the start.
 * @example explainGrowing(x, calls).extra // every unpaired actual index, in order
 */
export function explainGrowing(x: TrajectoryExplainer, calls: readonly ToolCall[]): {
  match: boolean
  pairOf: Int32Array
  paired: number
  extra: readonly number[]
} {
  if (calls.length < x.seen || (x.seen > 0 && calls[x.seen - 1] !== x.last)) reset(x)
  for (let i = x.seen; i < calls.length; i++) take(x, calls[i]!, i)
  x.seen = calls.length
  x.last = calls[calls.length - 1]
  const allPaired = x.paired === x.expected.length
  return {
    match: x.matchType === 'EXACT' ? allPaired && x.extra.length === 0 : allPaired,
    pairOf: x.pairOf,
    paired: x.paired,
    extra: x.extra,
  }
}

function reset(x: TrajectoryExplainer): void {
  x.seen = 0
  x.last = undefined
  x.pairOf.fill(-1)
  x.paired = 0
  x.extra = []
  x.missing = undefined
}

function take(x: TrajectoryExplainer, call: ToolCall, index: number): void {
  const { expected, options } = x
  if (x.matchType === 'EXACT') {
    if (index < expected.length && callsEqual(call, expected[index]!, options)) pair(x, index, index)
    else x.extra.push(index)
  } else if (x.matchType === 'IN_ORDER') {
    if (x.paired < expected.length && callsEqual(call, expected[x.paired]!, options)) pair(x, x.paired, index)
    else x.extra.push(index)
  } else {
    if (x.missing === undefined) {
      const keyer = createCallKeyer()
      x.missing = { keyer, buckets: bucketCalls(expected, keyer, options) }
    }
    const e = takeFirstEqual(x.missing.buckets, x.missing.keyer, call, options)
    if (e !== -1) pair(x, e, index)
    else x.extra.push(index)
  }
}

function pair(x: TrajectoryExplainer, expectedIndex: number, actualIndex: number): void {
  x.pairOf[expectedIndex] = actualIndex
  x.paired += 1
}

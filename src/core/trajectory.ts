/**
 * ADK's tool-trajectory matching (TrajectoryEvaluator, spec §2.1): call equality with Python `==`
 * on args, the three match types, an explanation for people, and an incremental matcher that gives
 * a verdict as soon as the calls seen so far decide it.
 */
import { bucketCalls, type CallBuckets, type CallKeyer, createCallKeyer, takeFirstEqual } from './call-key.ts'
import { pythonEqual } from './python-equal.ts'

import { MATCH_TYPES, type MatchOptions, type MatchType, type ToolCall } from './tool-call.ts'

export { MATCH_TYPES, type MatchOptions, type MatchType, type ToolCall }

/**
 * ADK's call equality: same name (exact, case-sensitive) and Python-equal args; with `ignoreArgs`
 * (post-2.0 `ignore_args`) names only.
 * @example callsEqual({ name: 'f', args: { n: 1 } }, { name: 'f', args: { n: 1.0 }, id: 'x' }) // true
 */
export function callsEqual(a: ToolCall, b: ToolCall, options?: MatchOptions): boolean {
  return a.name === b.name && (options?.ignoreArgs === true || pythonEqual(a.args, b.args))
}

/** Characters Python's `str.strip()` removes (str.isspace), which differ slightly from JS `trim()`. */
const PY_WHITESPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
const PY_STRIP = new RegExp(`^[${PY_WHITESPACE}]+|[${PY_WHITESPACE}]+$`, 'g')

export type ParsedMatchType = { ok: true; matchType: MatchType } | { ok: false; error: string }

/**
 * ADK's match_type normalisation (spec §1.4): strings are stripped, upper-cased, '-' and ' ' become
 * '_', then looked up by name; the ints 0/1/2 are the enum values. Anything else is an error value.
 * @example parseMatchType(' in-order ') // { ok: true, matchType: 'IN_ORDER' }
 */
export function parseMatchType(input: unknown): ParsedMatchType {
  if (typeof input === 'string') {
    const name = input.replace(PY_STRIP, '').toUpperCase().replaceAll('-', '_').replaceAll(' ', '_')
    const found = MATCH_TYPES.find((m) => m === name)
    if (found) return { ok: true, matchType: found }
  } else if (typeof input === 'number' && Number.isInteger(input) && input >= 0 && input < MATCH_TYPES.length) {
    return { ok: true, matchType: MATCH_TYPES[input]! }
  }
  // Never String() an object: one with a `toString` key that is not a function throws.
  const shown = typeof input === 'string'
    ? JSON.stringify(input)
    : input === null || typeof input !== 'object'
    ? String(input)
    : Array.isArray(input)
    ? 'an array'
    : 'an object'
  return { ok: false, error: `match_type ${shown} is not one of EXACT, IN_ORDER, ANY_ORDER (or 0, 1, 2)` }
}

/**
 * ADK's per-invocation trajectory verdict (score 1 if true, 0 if false). Zero expected calls:
 * EXACT needs zero actual calls, IN_ORDER and ANY_ORDER always match.
 * @example matchToolTrajectory([{ name: 'a' }, { name: 'b' }], [{ name: 'b' }], 'IN_ORDER') // true
 */
export function matchToolTrajectory(
  actual: readonly ToolCall[],
  expected: readonly ToolCall[],
  matchType: MatchType,
  options?: MatchOptions,
): boolean {
  if (matchType === 'EXACT') {
    if (actual.length !== expected.length) return false
    for (let i = 0; i < actual.length; i++) if (!callsEqual(actual[i]!, expected[i]!, options)) return false
    return true
  }
  if (matchType === 'IN_ORDER') {
    // Greedy subsequence: each expected call consumes the first equal actual call after the previous one.
    let next = 0
    for (let i = 0; i < actual.length && next < expected.length; i++) {
      if (callsEqual(actual[i]!, expected[next]!, options)) next++
    }
    return next === expected.length
  }
  // ANY_ORDER: multiset containment; each expected call removes the first equal unused actual call,
  // found by key (call-key.ts) rather than by comparing against every actual call.
  const keyer = createCallKeyer()
  const unused = bucketCalls(actual, keyer, options)
  for (const want of expected) if (takeFirstEqual(unused, keyer, want, options) === -1) return false
  return true
}

/** Which expected calls matched which actual calls (by index), which are missing, which actual calls are extra. */
export type TrajectoryExplanation = {
  match: boolean
  matched: Array<{ expected: number; actual: number }>
  missing: number[]
  extra: number[]
}

/**
 * The pairing behind the verdict. EXACT pairs by position (a shifted call makes everything after
 * it missing and extra, which is what EXACT means); IN_ORDER and ANY_ORDER pair as ADK consumes calls.
 * `match` always equals `matchToolTrajectory(...)`.
 * @example explainTrajectory([{ name: 'a' }, { name: 'x' }], [{ name: 'a' }], 'ANY_ORDER')
 * // { match: true, matched: [{ expected: 0, actual: 0 }], missing: [], extra: [1] }
 */
export function explainTrajectory(
  actual: readonly ToolCall[],
  expected: readonly ToolCall[],
  matchType: MatchType,
  options?: MatchOptions,
): TrajectoryExplanation {
  const pairOf = new Int32Array(expected.length).fill(-1)
  const used = new Uint8Array(actual.length)
  const pair = (e: number, a: number) => {
    pairOf[e] = a
    used[a] = 1
  }
  if (matchType === 'EXACT') {
    const n = Math.min(actual.length, expected.length)
    for (let i = 0; i < n; i++) if (callsEqual(actual[i]!, expected[i]!, options)) pair(i, i)
  } else if (matchType === 'IN_ORDER') {
    let next = 0
    for (let i = 0; i < actual.length && next < expected.length; i++) {
      if (callsEqual(actual[i]!, expected[next]!, options)) pair(next++, i)
    }
  } else {
    // Unlike ADK, keep going after a missing call, so every missing call is listed; the verdict is the same.
    const keyer = createCallKeyer()
    const unused = bucketCalls(actual, keyer, options)
    for (let e = 0; e < expected.length; e++) {
      const i = takeFirstEqual(unused, keyer, expected[e]!, options)
      if (i !== -1) pair(e, i)
    }
  }
  const matched: TrajectoryExplanation['matched'] = []
  const missing: number[] = []
  for (let e = 0; e < expected.length; e++) {
    if (pairOf[e]! >= 0) matched.push({ expected: e, actual: pairOf[e]! })
    else missing.push(e)
  }
  const extra: number[] = []
  for (let i = 0; i < actual.length; i++) if (used[i] === 0) extra.push(i)
  const match = matchType === 'EXACT' ? missing.length === 0 && extra.length === 0 : missing.length === 0
  return { match, matched, missing, extra }
}

/** `pending` until the calls seen so far decide the verdict; a decided verdict never changes. */
export type TrajectoryVerdict = 'pending' | 'matched' | 'failed'

/** Incremental matcher state. Mutable: `pushCall` updates it in place and returns it. */
export type TrajectoryMatcher = {
  readonly expected: readonly ToolCall[]
  readonly matchType: MatchType
  readonly options: MatchOptions
  verdict: TrajectoryVerdict
  /** Calls fed so far. */
  seen: number
  /** EXACT and IN_ORDER: expected calls consumed. ANY_ORDER: expected calls already paired. */
  consumed: number
  /** ANY_ORDER only: which expected calls are paired. */
  paired: Uint8Array
  /** ANY_ORDER only: unpaired expected calls by call key, built at the first pushed call. */
  unpaired: { keyer: CallKeyer; buckets: CallBuckets } | undefined
}

/**
 * Start matching a live stream of actual calls against the expected ones.
 * @example
 * const m = createTrajectoryMatcher([{ name: 'a' }], 'IN_ORDER')
 * pushCall(m, { name: 'a' }).verdict // 'matched' (final: later calls cannot undo it)
 */
export function createTrajectoryMatcher(
  expected: readonly ToolCall[],
  matchType: MatchType,
  options: MatchOptions = {},
): TrajectoryMatcher {
  // With nothing expected, IN_ORDER and ANY_ORDER have already matched (ADK scores them 1).
  const verdict = matchType !== 'EXACT' && expected.length === 0 ? 'matched' : 'pending'
  return { expected, matchType, options, verdict, seen: 0, consumed: 0, paired: new Uint8Array(expected.length), unpaired: undefined }
}

/** Feed the next actual call. EXACT fails at the first divergent or extra call; the others match once all expected calls are seen. */
export function pushCall(m: TrajectoryMatcher, call: ToolCall): TrajectoryMatcher {
  m.seen++
  if (m.verdict !== 'pending') return m
  const { expected, options } = m
  if (m.matchType === 'EXACT') {
    const want = expected[m.consumed]
    if (want === undefined || !callsEqual(call, want, options)) m.verdict = 'failed'
    else m.consumed++
    return m
  }
  if (m.matchType === 'IN_ORDER') {
    if (callsEqual(call, expected[m.consumed]!, options)) m.consumed++
  } else {
    // Pair with the first unpaired equal expected call: for an equivalence relation this succeeds
    // exactly when ADK's expected-first removal does, whatever the arrival order. Found by key, so
    // a call costs its own size, not a comparison with every expected call.
    if (m.unpaired === undefined) {
      const keyer = createCallKeyer()
      m.unpaired = { keyer, buckets: bucketCalls(expected, keyer, options) }
    }
    const e = takeFirstEqual(m.unpaired.buckets, m.unpaired.keyer, call, options)
    if (e !== -1) {
      m.paired[e] = 1
      m.consumed++
    }
  }
  if (m.consumed === expected.length) m.verdict = 'matched'
  return m
}

/** The stream ended: the verdict `matchToolTrajectory` gives on all the calls fed. */
export function finishMatcher(m: TrajectoryMatcher): boolean {
  if (m.verdict !== 'pending') return m.verdict === 'matched'
  // EXACT still pending means no divergence so far; it matches iff every expected call arrived.
  return m.matchType === 'EXACT' && m.consumed === m.expected.length
}

/**
 * `tool_trajectory_avg_score` (ADK TrajectoryEvaluator, spec §2.1): per invocation 1.0 if the
 * agent's tool calls match the expected ones under the configured match type, else 0.0; overall
 * the mean. Live: EXACT can fail at the first wrong call, IN_ORDER / ANY_ORDER can pass as soon as
 * every expected call has been seen.
 */
import * as z from 'zod'
import { lazySchema } from '../../adk/lazy-schema.ts'
import { lazyAdkObject } from '../../adk/casing.ts'
import { type AdkEvent, isFinalResponse } from '../../adk/event.ts'
import { type Invocation, toolCallsOf } from '../../adk/invocation.ts'
import { meanAggregate } from '../aggregate.ts'
import type { Criterion, InvocationContext, Outcome, Provisional } from '../criterion.ts'
import { createTrajectoryExplainer, explainGrowing, type TrajectoryExplainer } from '../trajectory-explainer.ts'
import { createTrajectoryMatcher, type MatchType, parseMatchType, pushCall, type ToolCall, type TrajectoryMatcher } from '../trajectory.ts'

/** Numbers, and numeric strings as pydantic's lax float accepts them. */
const threshold = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
  z.number(),
)

const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes'])
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no'])
/** pydantic's lax bool: booleans, 0/1, and the usual words in any case. */
const laxBool = z.preprocess((v) => {
  if (v === 0 || v === 1) return v === 1
  if (typeof v !== 'string') return v
  const word = v.trim().toLowerCase()
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : v
}, z.boolean())

const matchType = lazySchema(() =>
  z.unknown().optional().transform((value, ctx): MatchType => {
    if (value === undefined) return 'EXACT'
    const parsed = parseMatchType(value)
    if (parsed.ok) return parsed.matchType
    ctx.addIssue({ code: 'custom', message: parsed.error })
    return z.NEVER
  })
)

/**
 * ADK's ToolTrajectoryCriterion: `threshold`, `match_type` (normalised, default EXACT) and the
 * post-2.0 `ignore_args` (default false); both casings; unknown keys kept as BaseCriterion does.
 * @example ToolTrajectoryConfig.parse({ threshold: 1, matchType: 'in order' }).match_type // 'IN_ORDER'
 */
export const ToolTrajectoryConfig = lazyAdkObject(
  () => ({ threshold, match_type: matchType, ignore_args: laxBool.optional().transform((v) => v ?? false) }),
  'allow',
)
export type ToolTrajectoryConfig = z.infer<typeof ToolTrajectoryConfig>

export type ToolTrajectoryState = {
  config: ToolTrajectoryConfig
  /** Undefined when there is no expected invocation: the score will be null. */
  expected: readonly ToolCall[] | undefined
  matcher: TrajectoryMatcher | undefined
  /**
   * Calls of the current final-response event, if it has any, and of every event after it. ADK
   * drops a final event's calls from the trajectory (a long-running or skip_summarization call,
   * adk-python #5410) unless a later final event takes its place, so these calls are not fed to the
   * matcher until then. Verdicts from the calls fed are thus valid whichever way the invocation is
   * built (ADK's or evalstream's, which keeps such calls): they come from a common prefix.
   */
  held: ToolCall[]
  /** The pairing behind the verdict, kept as the invocation's calls grow (one per invocation). */
  explainer: TrajectoryExplainer | undefined
}

/**
 * Calls listed per details list (matched, missing, extra). An invocation is scored again each time
 * a final response completes it; listing every extra call of a long one each time would make its
 * results, and the time to write them, grow with every call. Past this the list stops and
 * `<list>_count` gives the full number.
 */
export const MAX_LISTED_CALLS = 100

/** The first MAX_LISTED_CALLS entries, and the full count when some were left out. */
function listed<T, U>(name: string, items: readonly T[], show: (item: T) => U): Record<string, U[] | number> {
  const out: Record<string, U[] | number> = { [name]: items.slice(0, MAX_LISTED_CALLS).map((item) => show(item)) }
  if (items.length > MAX_LISTED_CALLS) out[`${name}_count`] = items.length
  return out
}

/** A call as results show it: name and args (null when absent, which is not `{}`), no id. */
function shown(call: ToolCall) {
  return { name: call.name, args: call.args ?? null }
}

function init(context: InvocationContext<ToolTrajectoryConfig>): ToolTrajectoryState {
  const { config } = context
  const expected = context.expected ? toolCallsOf(context.expected) : undefined
  const matcher = expected ? createTrajectoryMatcher(expected, config.match_type, { ignoreArgs: config.ignore_args }) : undefined
  const explainer = expected ? createTrajectoryExplainer(expected, config.match_type, { ignoreArgs: config.ignore_args }) : undefined
  return { config, expected, matcher, held: [], explainer }
}

/** Mutates and returns `state`: the engine keeps one state per invocation and metric. */
function step(state: ToolTrajectoryState, event: AdkEvent): ToolTrajectoryState {
  const { matcher } = state
  // Same event filter as building the invocation: no partial chunks, no user events, content with parts.
  if (!matcher || event.partial === true) return state
  if ((event.author || 'agent').toLowerCase() === 'user') return state
  const parts = event.content?.parts
  if (!parts || parts.length === 0) return state
  const calls: ToolCall[] = []
  for (const part of parts) if (part.function_call) calls.push(part.function_call)
  if (isFinalResponse(event)) {
    // The previous final event is now an ordinary intermediate event: its calls are in.
    for (const call of state.held) pushCall(matcher, call)
    state.held = calls
  } else if (state.held.length > 0) state.held.push(...calls)
  else for (const call of calls) pushCall(matcher, call)
  return state
}

function progress(state: ToolTrajectoryState): Provisional | null {
  const m = state.matcher
  if (!m || m.verdict === 'pending') return null
  return {
    final: true,
    score: m.verdict === 'matched' ? 1 : 0,
    details: { match_type: m.matchType, calls_seen: m.seen },
  }
}

function finish(state: ToolTrajectoryState, actual: Invocation): Outcome {
  const { config, expected, explainer } = state
  if (!expected || !explainer) {
    const reason = 'tool_trajectory_avg_score needs the expected invocation (a reference); this eval case has none'
    return { kind: 'score', result: { score: null, status: 'NOT_EVALUATED', reason } }
  }
  const calls = toolCallsOf(actual)
  // Incremental: this invocation is finished again at every completion, with more calls each time.
  const why = explainGrowing(explainer, calls)
  const matched: Array<{ expected: number; actual: number }> = []
  const missing: number[] = []
  why.pairOf.forEach((a, e) => (a >= 0 ? matched.push({ expected: e, actual: a }) : missing.push(e)))
  const details = {
    match_type: config.match_type,
    ...listed('matched', matched, (m) => ({ ...shown(expected[m.expected]!), expected_index: m.expected, actual_index: m.actual })),
    ...listed('missing', missing, (e) => ({ ...shown(expected[e]!), expected_index: e })),
    ...listed('extra', why.extra, (a) => ({ ...shown(calls[a]!), actual_index: a })),
  }
  return { kind: 'score', result: { score: why.match ? 1 : 0, details } }
}

/**
 * The criterion, as the registry holds it.
 * @example
 * const config = toolTrajectoryAvgScore.config.parse({ threshold: 1, match_type: 'IN_ORDER' })
 * const state = toolTrajectoryAvgScore.init({ config, expected, key: 'k' })
 */
export const toolTrajectoryAvgScore: Criterion<ToolTrajectoryConfig, ToolTrajectoryState> = {
  key: 'tool_trajectory_avg_score',
  description: "1.0 per invocation when the agent's tool calls match the expected ones (name and args, Python ==) " +
    'under match_type EXACT, IN_ORDER or ANY_ORDER, else 0.0; overall the mean.',
  config: ToolTrajectoryConfig,
  needsExpected: true,
  judged: false,
  init,
  step,
  progress,
  finish,
  aggregate: meanAggregate,
}

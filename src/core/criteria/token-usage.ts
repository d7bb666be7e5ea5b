/**
 * token_usage_v1 (newer ADK, informational): the tokens the model calls of an invocation consumed,
 * summed over its calls (non-partial agent events with usage metadata; efficiency.ts). The score is
 * the total; `details.token_usage_details` has ADK's breakdown, which nests:
 *
 *   total_tokens = input_tokens + output_tokens
 *     input_tokens = prompt_tokens (cached_tokens are part of them) + tool_use_tokens
 *     output_tokens = candidates_tokens + reasoning_tokens
 *
 * read from Gemini's usage metadata (promptTokenCount, cachedContentTokenCount,
 * toolUsePromptTokenCount, candidatesTokenCount, thoughtsTokenCount; either spelling). The total is
 * derived from the two directions, not read from totalTokenCount, so it always agrees with them. A
 * count no call reported is null (n/a), never 0.
 *
 * The case's breakdown averages each count over every invocation, an invocation that did not report
 * a count adding 0 (Gemini leaves thoughtsTokenCount out of a call that did not think); a count no
 * invocation reported stays null. The case's score is the averaged total.
 */
import type { AdkEvent } from '../../adk/event.ts'
import { TOKEN_USAGE_FIELDS } from '../../adk/results.ts'
import type { Criterion, InvocationScore, OverallScore } from '../criterion.ts'
import { informational, isCountedAgentEvent, type NoConfig, noThresholdConfig, usageOf } from './efficiency.ts'

const KEY = 'token_usage_v1'

export type TokenUsageDetails = Record<(typeof TOKEN_USAGE_FIELDS)[number], number | null>

/** Where each reported count comes from in Gemini's usage metadata (camelCase, then snake_case). */
const REPORTED = {
  prompt_tokens: ['promptTokenCount', 'prompt_token_count'],
  cached_tokens: ['cachedContentTokenCount', 'cached_content_token_count'],
  tool_use_tokens: ['toolUsePromptTokenCount', 'tool_use_prompt_token_count'],
  candidates_tokens: ['candidatesTokenCount', 'candidates_token_count'],
  reasoning_tokens: ['thoughtsTokenCount', 'thoughts_token_count'],
} as const

type Reported = keyof typeof REPORTED

/** Adds a count to a running total, keeping "not reported" (null) apart from 0. */
function add(total: number | null, count: number | null): number | null {
  return count === null ? total : (total ?? 0) + count
}

/** Ignored counts named in the reason at most (the rest are only counted). */
const MAX_NAMED_IGNORED = 3

/**
 * A token count is a whole number from 0 to 2^53-1; anything else (1e308, -5, "many", 1.5) is
 * ignored, named in `ignored`, so it can neither poison the sums nor pass unnoticed.
 */
function countOf(usage: Record<string, unknown>, names: readonly string[], ignored: string[]): number | null {
  for (const name of names) {
    const value = usage[name]
    if (value === undefined || value === null) continue
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value
    ignored.push(
      `${name}=${
        typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value === 'number' ? String(value) : typeof value
      }`,
    )
  }
  return null
}

/** A sum that would pass 2^53-1 stays where it was and the count is ignored, like a bad one. */
function addSafely(total: number | null, count: number | null, name: string, ignored: string[]): number | null {
  const sum = add(total, count)
  if (sum !== null && !Number.isSafeInteger(sum)) {
    ignored.push(`${name}: the sum would pass 2^53-1`)
    return total
  }
  return sum
}

/**
 * The breakdown of summed counts, with the derived totals.
 * @example withTotals({ prompt_tokens: 50, cached_tokens: null, tool_use_tokens: null, candidates_tokens: 7, reasoning_tokens: null }).total_tokens // 57
 */
function withTotals(sums: Record<Reported, number | null>): TokenUsageDetails {
  const input = add(add(null, sums.prompt_tokens), sums.tool_use_tokens)
  const output = add(add(null, sums.candidates_tokens), sums.reasoning_tokens)
  const total = input === null && output === null ? null : (input ?? 0) + (output ?? 0)
  return {
    total_tokens: total,
    input_tokens: input,
    prompt_tokens: sums.prompt_tokens,
    cached_tokens: sums.cached_tokens,
    tool_use_tokens: sums.tool_use_tokens,
    output_tokens: output,
    candidates_tokens: sums.candidates_tokens,
    reasoning_tokens: sums.reasoning_tokens,
  }
}

/** `ignored`: token counts that were not whole numbers from 0 to 2^53-1 (how many, and the first few named). */
type State = { sums: Record<Reported, number | null>; calls: number; ignored: number; named: string[] }

/**
 * @example an invocation with calls reporting 50+7 and 80+12 tokens scores 149
 */
export const tokenUsageV1: Criterion<NoConfig, State> = {
  key: KEY,
  description:
    'Informational, always reported: tokens the model calls of an invocation consumed (total; input, prompt, cached, tool-use, output, candidates and reasoning counts in details.token_usage_details; mean over the case). Never passes or fails; a threshold on it is a config error.',
  config: noThresholdConfig(KEY) as never,
  alwaysReported: true,
  needsExpected: false,
  judged: false,
  init: () => ({
    sums: { prompt_tokens: null, cached_tokens: null, tool_use_tokens: null, candidates_tokens: null, reasoning_tokens: null },
    calls: 0,
    ignored: 0,
    named: [],
  }),
  step(state: State, event: AdkEvent): State {
    const usage = isCountedAgentEvent(event) ? usageOf(event) : undefined
    if (!usage) return state
    state.calls += 1
    const ignored: string[] = []
    for (const field of Object.keys(REPORTED) as Reported[]) {
      state.sums[field] = addSafely(state.sums[field], countOf(usage, REPORTED[field], ignored), field, ignored)
    }
    state.ignored += ignored.length
    for (const what of ignored) if (state.named.length < MAX_NAMED_IGNORED) state.named.push(what)
    return state
  },
  finish(state) {
    const details = withTotals(state.sums)
    const reason = state.calls === 0
      ? 'no event of the invocation carries usageMetadata (the model backend did not report token usage)'
      : 'the usage metadata of the invocation has no token counts'
    const result = informational(details.total_tokens, reason, { token_usage_details: details })
    if (state.ignored > 0) {
      const why = `ignored ${state.ignored} token count(s) that are not whole numbers from 0 to 2^53-1 (${state.named.join(', ')})`
      result.reason = result.reason === undefined ? why : `${result.reason}; ${why}`
    }
    return { kind: 'score', result }
  },
  aggregate: averageTokenUsage,
}

/**
 * The case's breakdown: each count averaged over every invocation (n/a counts as 0 when some
 * invocation reported it; null when none did); the score is the averaged total.
 * @example averageTokenUsage([{ score: 10, details: { token_usage_details: d10 } }, { score: null, details: { token_usage_details: dNull } }]).score // 5
 */
export function averageTokenUsage(scores: readonly InvocationScore[]): OverallScore {
  const all = scores.map((s) => s.details?.token_usage_details as TokenUsageDetails | undefined)
  const averaged = {} as TokenUsageDetails
  for (const field of TOKEN_USAGE_FIELDS) {
    const present = all.map((d) => d?.[field]).filter((v): v is number => typeof v === 'number')
    averaged[field] = present.length > 0 ? present.reduce((a, b) => a + b, 0) / all.length : null
  }
  const result: OverallScore = { score: averaged.total_tokens, status: 'INFORMATIONAL', details: { token_usage_details: averaged } }
  if (result.score === null) {
    result.reason = scores.length === 0
      ? 'there were no invocations'
      : (scores.find((s) => s.reason)?.reason ?? 'no token usage was reported')
  }
  return result
}

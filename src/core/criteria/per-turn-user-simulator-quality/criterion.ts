/**
 * per_turn_user_simulator_quality_v1 (spec §2.9, ADK's PerTurnUserSimulatorQualityV1): scores the
 * USER SIMULATOR of a conversation_scenario case, not the agent.
 * - Turn 1: 1 when the user's text equals the scenario's `starting_prompt` (both trimmed), else 0.
 * - Later turns: an LLM judge sees the plan, the conversation before the turn (`user: text` and
 *   `<role>: final response` lines) and the persona's violation rubrics, and says `"is_valid"`;
 *   num_samples samples, majority vote, ties invalid, no readable label -> no score.
 * - When the session ends (`closing`), one more judged turn whose message is the stop signal
 *   checks that the conversation ended when it should; if that check FAILS, it replaces the last
 *   turn's result.
 * - Overall: the sum of the scores of PASSED turns over the number of turns (every turn counts).
 * A turn the judge could not answer at all (no judge configured, every call failed) makes the
 * metric NOT_EVALUATED with that reason, as ADK's raised error does.
 */
import * as z from 'zod'
import { lazyAdkObject } from '../../../adk/casing.ts'
import { contentText } from '../../../adk/content.ts'
import type { Invocation } from '../../../adk/invocation.ts'
import { statusFor } from '../../../adk/status.ts'
import { invocationStatus } from '../../aggregate.ts'
import type { ClosingContext, Criterion, InvocationContext, InvocationScore, JudgeAnswer, Outcome, OverallScore } from '../../criterion.ts'
import { nullReason, samplesFor } from '../../judging/answers.ts'
import { judgedCriterionFields } from '../../judging/options.ts'
import { judgeRequest, scoreOutcome } from '../../judging/request.ts'
import { verdictDecided, verdictVoteIndex } from '../../judging/vote.ts'
import { resolvePersona } from '../../personas.ts'
import { isValidScore } from './is-valid-label.ts'
import { USER_SIMULATOR_QUALITY_SCHEMA, userSimulatorQualityPrompt } from './prompt.ts'

const KEY = 'per_turn_user_simulator_quality_v1'
/** ADK's default stop signal (LlmBackedUserSimulatorCriterion.stop_signal). */
export const DEFAULT_STOP_SIGNAL = '</finished>'

/** ADK's LlmBackedUserSimulatorCriterion: the LLM-as-judge fields plus `stop_signal`. */
export const LlmBackedUserSimulatorCriterion = lazyAdkObject(
  () => ({ ...judgedCriterionFields(), stop_signal: z.string().nullish().transform((v) => v ?? DEFAULT_STOP_SIGNAL) }),
  'allow',
)
export type LlmBackedUserSimulatorCriterion = z.infer<typeof LlmBackedUserSimulatorCriterion>

type State = InvocationContext<LlmBackedUserSimulatorCriterion>

/**
 * ADK's history for this judge: per invocation `user: <text>`, then `<role>: <final response>`.
 * @example conversationHistory([invocation]) // 'user: Hi\n\nmodel: Hello'
 */
export function conversationHistory(invocations: readonly Invocation[]): string {
  const lines: string[] = []
  for (const invocation of invocations) {
    lines.push(`user: ${contentText(invocation.user_content)}`)
    if (invocation.final_response) lines.push(`${invocation.final_response.role ?? 'model'}: ${contentText(invocation.final_response)}`)
  }
  return lines.join('\n\n')
}

function finish(state: State, actual: Invocation): Outcome {
  const { scenario } = state
  if (!scenario) return scoreOutcome(null, `${KEY} scores a simulated conversation: the eval case has no conversation_scenario`)
  const previous = state.previous?.() ?? []
  const text = contentText(actual.user_content)
  if (previous.length === 0) {
    const score = text.trim() === scenario.starting_prompt.trim() ? 1 : 0
    return scoreOutcome(score, undefined, { turn: 'starting_prompt' })
  }
  return judgeTurn(state.config, state.key, scenario, previous, text, 'turn', (result) => result)
}

/** The stop-signal turn: replaces the last turn's result only when it FAILS. */
function closing(context: ClosingContext<LlmBackedUserSimulatorCriterion>): Outcome {
  const { scenario, last, config } = context
  if (!scenario || context.invocations.length === 0) return { kind: 'score', result: last }
  return judgeTurn(
    config,
    context.key,
    scenario,
    context.invocations,
    config.stop_signal,
    'stop_signal',
    (result) => result.score !== null && statusFor(result.score, config.threshold) === 'FAILED' ? result : last,
  )
}

function judgeTurn(
  config: LlmBackedUserSimulatorCriterion,
  key: string,
  scenario: NonNullable<State['scenario']>,
  history: readonly Invocation[],
  message: string,
  turn: 'turn' | 'stop_signal',
  choose: (result: InvocationScore) => InvocationScore,
): Outcome {
  const persona = resolvePersona(scenario.user_persona)
  if (!persona.ok) return scoreOutcome(null, persona.error)
  const { systemInstruction, prompt } = userSimulatorQualityPrompt({
    conversationPlan: scenario.conversation_plan,
    conversationHistory: conversationHistory(history),
    generatedMessage: message,
    stopSignal: config.stop_signal,
    persona: persona.persona,
  })
  const total = config.judge_model_options.num_samples
  const request = judgeRequest({
    metric: KEY,
    invocationKey: key,
    step: turn,
    systemInstruction,
    prompt,
    responseJsonSchema: USER_SIMULATOR_QUALITY_SCHEMA,
    options: config.judge_model_options,
    samples: total,
    decided: (texts) => verdictDecided(texts.map(isValidScore), total),
  })
  return { kind: 'judge', requests: [request], resume: (answers) => ({ kind: 'score', result: choose(resume(answers, request.id, turn)) }) }
}

function resume(answers: JudgeAnswer[], id: string, turn: string): InvocationScore {
  const samples = samplesFor(answers, id)
  const scores = samples.map((s) => ('text' in s ? isValidScore(s.text) : null))
  // Not one answer came back: ADK's judge call would have raised (see `aggregate`).
  if (samples.every((s) => 'error' in s)) return { score: null, reason: nullReason(samples, 'the judge gave no answer') }
  const score = scores[verdictVoteIndex(scores)] ?? null
  const details = { turn, sample_scores: scores }
  return score === null
    ? { score, reason: `no judge sample gave an "is_valid" label (${samples.length} sample(s))`, details }
    : { score, details }
}

/** ADK's `_aggregate_conversation_results`, with an unjudged turn making the metric NOT_EVALUATED. */
function aggregate(scores: InvocationScore[], config: LlmBackedUserSimulatorCriterion): OverallScore {
  if (scores.length === 0) return { score: null, status: 'NOT_EVALUATED', reason: 'there were no turns to score' }
  const unjudged = scores.find((s) => s.score === null && s.details?.sample_scores === undefined)
  if (unjudged) return { score: null, status: 'NOT_EVALUATED', reason: unjudged.reason ?? 'a turn could not be judged' }
  let valid = 0
  for (const s of scores) if (s.score !== null && invocationStatus(s, config.threshold) === 'PASSED') valid += s.score
  const score = valid / scores.length
  return { score, status: statusFor(score, config.threshold) }
}

/**
 * @example
 * const outcome = perTurnUserSimulatorQualityV1.finish(perTurnUserSimulatorQualityV1.init({ config, key: 's/0', scenario }), actual)
 * // turn 1: { kind: 'score', result: { score: 1, ... } } when it is the starting prompt
 */
export const perTurnUserSimulatorQualityV1: Criterion<LlmBackedUserSimulatorCriterion, State> = {
  key: KEY,
  description:
    'Scores the user simulator of a conversation_scenario case: turn 1 must be the starting prompt; an LLM judge checks every later turn, and the end of the conversation, against the plan and persona.',
  config: LlmBackedUserSimulatorCriterion,
  needsExpected: false,
  judged: true,
  readsPrevious: true,
  init: (context) => context,
  finish,
  closing,
  aggregate,
}

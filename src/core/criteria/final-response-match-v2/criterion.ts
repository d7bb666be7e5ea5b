/**
 * final_response_match_v2 (spec §2.3): an LLM judge decides whether the agent's final answer
 * matches the reference answer; num_samples samples, majority vote (ties -> invalid), overall = mean
 * over the invocations that got a verdict. Reference-based: without an expected invocation the
 * invocation is NOT_EVALUATED (ADK raises and loses the whole metric).
 */
import type * as z from 'zod'
import { lazyAdkObject } from '../../../adk/casing.ts'
import { contentText } from '../../../adk/content.ts'
import type { Invocation } from '../../../adk/invocation.ts'
import { evaluatedOnlyMeanAggregate } from '../../aggregate.ts'
import type { Criterion, InvocationContext, JudgeAnswer, Outcome } from '../../criterion.ts'
import { nullReason, samplesFor } from '../../judging/answers.ts'
import { responseText } from '../../judging/context.ts'
import { judgedCriterionFields } from '../../judging/options.ts'
import { judgeRequest, scoreOutcome } from '../../judging/request.ts'
import { verdictDecided, verdictVoteIndex } from '../../judging/vote.ts'
import { readVerdictSample, readVerdictText } from './verdict-sample.ts'
import { FINAL_RESPONSE_MATCH_SCHEMA, finalResponseMatchPrompt } from './prompt.ts'

const KEY = 'final_response_match_v2'

/**
 * ADK's LlmAsAJudgeCriterion (final_response_match_v2).
 * @example LlmAsAJudgeCriterion.parse({ threshold: 0.8 }).judge_model_options.num_samples // 5
 */
export const LlmAsAJudgeCriterion = lazyAdkObject(judgedCriterionFields, 'allow')
export type LlmAsAJudgeCriterion = z.infer<typeof LlmAsAJudgeCriterion>

type State = InvocationContext<LlmAsAJudgeCriterion>

function finish(state: State, actual: Invocation): Outcome {
  const { config, expected } = state
  if (!expected) return scoreOutcome(null, `${KEY} needs the expected invocation (reference answer) for this turn`)
  const include = config.include_intermediate_responses_in_final
  const { systemInstruction, prompt } = finalResponseMatchPrompt({
    // ADK shows the judge the expected invocation's user text.
    userPrompt: contentText(expected.user_content),
    agentResponse: responseText(actual, include),
    referenceResponse: responseText(expected, include),
  })
  const total = config.judge_model_options.num_samples
  const request = judgeRequest({
    metric: KEY,
    invocationKey: state.key,
    step: 'verdict',
    systemInstruction,
    prompt,
    responseJsonSchema: FINAL_RESPONSE_MATCH_SCHEMA,
    options: config.judge_model_options,
    samples: total,
    decided: (texts) => verdictDecided(texts.map((t) => readVerdictText(t).score), total),
  })
  return { kind: 'judge', requests: [request], resume: (answers) => resume(answers, request.id) }
}

function resume(answers: JudgeAnswer[], id: string): Outcome {
  const samples = samplesFor(answers, id)
  const read = samples.map(readVerdictSample)
  const chosenIndex = verdictVoteIndex(read.map((s) => s.score))
  const chosen = read[chosenIndex]
  const details: Record<string, unknown> = {
    label: chosen?.label ?? null,
    reasoning: chosen?.reasoning ?? null,
    parsed_with: chosen?.parsed_with ?? null,
    sample_labels: read.map((s) => s.label ?? (s.error !== undefined ? 'ERROR' : null)),
    // Every sample's own reasoning beside its vote (the error for a sample that failed), and which
    // sample the vote kept: `reasoning` above is that one's.
    sample_reasoning: read.map((s) => s.reasoning ?? s.error ?? null),
    chosen_sample: chosen ? chosenIndex : null,
  }
  const score = chosen?.score ?? null
  const reason = nullReason(samples, `no judge sample gave a valid/invalid label (${samples.length} sample(s))`)
  return scoreOutcome(score, reason, details)
}

/**
 * @example
 * const outcome = finalResponseMatchV2.finish(finalResponseMatchV2.init({ config, expected, key: 's/0' }), actual)
 * // outcome.kind === 'judge': send outcome.requests, then outcome.resume(answers)
 */
export const finalResponseMatchV2: Criterion<LlmAsAJudgeCriterion, State> = {
  key: KEY,
  description: "An LLM judge decides whether the agent's final response matches the reference response (majority of num_samples votes).",
  config: LlmAsAJudgeCriterion,
  needsExpected: true,
  judged: true,
  init: (context) => context,
  finish,
  aggregate: evaluatedOnlyMeanAggregate,
}

/**
 * hallucinations_v1 (spec §2.6): each piece of agent text is split into sentences by one judge call,
 * then a second call labels every sentence against what the agent had (instructions, user prompt,
 * tools, earlier messages and tool results). Two judge rounds: `resume` of the first returns the
 * second. num_samples is ignored (one sample per call), as in ADK.
 */
import type * as z from 'zod'
import { lazyAdkObject } from '../../../adk/casing.ts'
import type { Invocation } from '../../../adk/invocation.ts'
import { exactMean, exactMeanAggregate } from '../../aggregate.ts'
import type { Criterion, InvocationContext, JudgeAnswer, JudgeRequest, Outcome } from '../../criterion.ts'
import { samplesFor } from '../../judging/answers.ts'
import { flag, judgedCriterionFields } from '../../judging/options.ts'
import { judgeRequest, scoreOutcome } from '../../judging/request.ts'
import { type HallucinationStep, hallucinationSteps, readSegmenterSample, readValidatorSample } from './steps.ts'
import { hallucinationLabelScore, type SentenceVerdict } from './adk-text.ts'
import { hallucinationSegmenterPrompt, SEGMENTER_SCHEMA } from './segmenter-prompt.ts'
import { hallucinationValidatorPrompt, VALIDATOR_SCHEMA } from './validator-prompt.ts'

const KEY = 'hallucinations_v1'

/**
 * ADK's HallucinationsCriterion.
 * @example HallucinationsCriterion.parse({ threshold: 0.5 }).evaluate_intermediate_nl_responses // false
 */
export const HallucinationsCriterion = lazyAdkObject(
  () => ({ ...judgedCriterionFields(), evaluate_intermediate_nl_responses: flag() }),
  'allow',
)
export type HallucinationsCriterion = z.infer<typeof HallucinationsCriterion>

type State = InvocationContext<HallucinationsCriterion>

/** One step's result, kept in details so users see every sentence's label and rationale. */
type StepResult = {
  source: HallucinationStep['source']
  text: string
  score: number | null
  reason?: string
  sentences?: Array<SentenceVerdict & { score: number | null }>
}

function finish(state: State, actual: Invocation): Outcome {
  const steps = hallucinationSteps(actual, state.config.evaluate_intermediate_nl_responses)
  if (steps.length === 0) return scoreOutcome(null, 'the agent produced no text to check')
  const options = state.config.judge_model_options
  const requests = steps.map((step, i) => {
    const { systemInstruction, prompt } = hallucinationSegmenterPrompt(step.text)
    return judgeRequest({
      metric: KEY,
      invocationKey: state.key,
      step: `segment-${i}`,
      systemInstruction,
      prompt,
      responseJsonSchema: SEGMENTER_SCHEMA,
      options,
      samples: 1,
    })
  })
  return { kind: 'judge', requests, resume: (answers) => validate(state, steps, requests, answers) }
}

function validate(state: State, steps: HallucinationStep[], segmenters: JudgeRequest[], answers: JudgeAnswer[]): Outcome {
  const results: StepResult[] = steps.map((s) => ({ source: s.source, text: s.text, score: null }))
  const validators: Array<{ index: number; request: JudgeRequest }> = []
  steps.forEach((step, i) => {
    const read = readSegmenterSample(samplesFor(answers, (segmenters[i] as JudgeRequest).id)[0])
    const result = results[i] as StepResult
    if ('error' in read) result.reason = `sentence segmentation failed: ${read.error}`
    else if (read.sentences.length === 0) result.reason = 'the segmenter found no sentences'
    else {
      const { systemInstruction, prompt } = hallucinationValidatorPrompt(step.context, read.sentences)
      const request = judgeRequest({
        metric: KEY,
        invocationKey: state.key,
        step: `validate-${i}`,
        systemInstruction,
        prompt,
        responseJsonSchema: VALIDATOR_SCHEMA,
        options: state.config.judge_model_options,
        samples: 1,
      })
      validators.push({ index: i, request })
    }
  })
  if (validators.length === 0) return conclude(results)
  return {
    kind: 'judge',
    requests: validators.map((v) => v.request),
    resume: (second) => {
      for (const { index, request } of validators) score(results[index] as StepResult, samplesFor(second, request.id)[0])
      return conclude(results)
    },
  }
}

function score(result: StepResult, sample: Parameters<typeof readValidatorSample>[0]): void {
  const read = readValidatorSample(sample)
  if ('error' in read) {
    result.reason = `sentence validation failed: ${read.error}`
    return
  }
  result.sentences = read.verdicts.map((v) => ({ ...v, score: hallucinationLabelScore(v.label) ?? null }))
  const scores = result.sentences.flatMap((s) => (s.score === null ? [] : [s.score]))
  result.score = exactMean(scores)
  if (result.score === null) result.reason = 'no sentence got a known label'
}

function conclude(results: StepResult[]): Outcome {
  const scores = results.flatMap((r) => (r.score === null ? [] : [r.score]))
  const reasons = Array.from(new Set(results.flatMap((r) => (r.reason ? [r.reason] : []))))
  return scoreOutcome(exactMean(scores), `no step could be scored: ${reasons.join('; ')}`, { steps: results })
}

/**
 * @example
 * const first = hallucinationsV1.finish(hallucinationsV1.init({ config, key: 's/0' }), actual) // segmenter requests
 * // first.resume(segmenterAnswers) -> validator requests; its resume(validatorAnswers) -> the score
 */
export const hallucinationsV1: Criterion<HallucinationsCriterion, State> = {
  key: KEY,
  description:
    "An LLM judge splits the agent's text into sentences and labels each as supported, unsupported, contradictory, disputed or not applicable given the context; score = share of supported sentences.",
  config: HallucinationsCriterion,
  needsExpected: false,
  judged: true,
  init: (context) => context,
  finish,
  aggregate: exactMeanAggregate,
}

/**
 * response_evaluation_score (spec §1.6): ADK has Vertex AI's evaluation service rate the coherence
 * of each final response (1-5), one call per invocation with the user text, the expected final
 * text as reference and the actual final text; the overall score is the mean of the scores.
 * The request carries that as a coherence assessment: the judge port sends it to Vertex when Vertex
 * is configured; otherwise, only if the operator opted in, our own prompt goes to the judge model
 * and the result says `judge: "evalstream"`; by default it is NOT_EVALUATED with the reason.
 */
import type * as z from 'zod'
import { lazyAdkObject } from '../../../adk/casing.ts'
import { contentText } from '../../../adk/content.ts'
import type { Invocation } from '../../../adk/invocation.ts'
import { meanAggregate } from '../../aggregate.ts'
import type { Criterion, InvocationContext, Outcome } from '../../criterion.ts'
import { judgedCriterionFields } from '../../judging/options.ts'
import { judgeRequest, scoreOutcome } from '../../judging/request.ts'
import { serviceScoreOutcome } from '../../judging/service-score.ts'
import { coherencePrompt, SCORE_ANSWER_SCHEMA } from './prompt.ts'

const KEY = 'response_evaluation_score'

export const ResponseEvaluationCriterion = lazyAdkObject(judgedCriterionFields, 'allow')
type Config = z.infer<typeof ResponseEvaluationCriterion>
type State = InvocationContext<Config>

function finish(state: State, actual: Invocation): Outcome {
  if (!state.expected) {
    return scoreOutcome(null, 'response_evaluation_score needs the expected invocation (its final response is the reference)')
  }
  const userText = contentText(actual.user_content)
  const response = contentText(actual.final_response)
  const reference = contentText(state.expected.final_response)
  const { systemInstruction, prompt } = coherencePrompt(userText, response, reference)
  const request = judgeRequest({
    metric: KEY,
    invocationKey: state.key,
    step: 'coherence',
    systemInstruction,
    prompt,
    responseJsonSchema: SCORE_ANSWER_SCHEMA,
    options: state.config.judge_model_options,
    samples: 1,
    assessment: { kind: 'coherence', prompt: userText, response, reference },
  })
  return { kind: 'judge', requests: [request], resume: (answers) => serviceScoreOutcome(answers, request.id, { min: 1, max: 5 }) }
}

/**
 * @example responseEvaluationScore.config.parse({ threshold: 3 }).threshold // 3
 */
export const responseEvaluationScore: Criterion<Config, State> = {
  key: KEY,
  description: "Vertex AI's coherence rating of the final response (1-5), one call per invocation, averaged.",
  config: ResponseEvaluationCriterion,
  needsExpected: true,
  judged: true,
  scoreRange: { min: 1, max: 5 },
  init: (context) => context,
  finish,
  aggregate: meanAggregate,
}

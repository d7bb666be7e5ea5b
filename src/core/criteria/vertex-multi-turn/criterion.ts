/**
 * multi_turn_task_success_v1, multi_turn_trajectory_quality_v1, multi_turn_tool_use_quality_v1
 * (spec §1.3): ADK sends the whole conversation to Vertex AI's evaluation service
 * (`:evaluateInstances`, predefined metric spec of the same name) and maps its answer: the score
 * when it is a finite number, the rubric verdicts, explanation and error as rubric scores, on the
 * LAST turn only (PASSED when score >= threshold); turns before it are NOT_EVALUATED.
 *
 * The request carries the conversation as an assessment; the judge port sends it to Vertex when
 * Vertex is configured. Otherwise, only if the operator opted in, the request's prompt (our own)
 * goes to the judge model and the result says `judge: "evalstream"`; by default the metric is
 * NOT_EVALUATED with the reason the judge gives.
 */
import type * as z from 'zod'
import { lazyAdkObject } from '../../../adk/casing.ts'
import type { ClosingContext, Criterion, InvocationContext, JudgeAnswer, Outcome } from '../../criterion.ts'
import { judgedCriterionFields } from '../../judging/options.ts'
import { conversationRecord, lastTurnAggregate, waitForEnd } from '../../judging/last-turn.ts'
import { judgeRequest } from '../../judging/request.ts'
import { serviceScoreOutcome } from '../../judging/service-score.ts'
import { conversationMetricPrompt, SCORE_ANSWER_SCHEMA } from './prompt.ts'

/** A plain threshold criterion in ADK; judge_model_options picks the model of the opt-in evalstream judge. */
export const VertexConversationCriterion = lazyAdkObject(judgedCriterionFields, 'allow')
type Config = z.infer<typeof VertexConversationCriterion>

function conversationCriterion(key: string, description: string): Criterion<Config, InvocationContext<Config>> {
  function closing(context: ClosingContext<Config>): Outcome {
    const { systemInstruction, prompt } = conversationMetricPrompt(key, context.invocations)
    const request = judgeRequest({
      metric: key,
      invocationKey: context.key,
      step: 'conversation',
      systemInstruction,
      prompt,
      responseJsonSchema: SCORE_ANSWER_SCHEMA,
      options: context.config.judge_model_options,
      // One call: ADK's autorater settings are ignored for predefined metrics.
      samples: 1,
      assessment: { kind: 'conversation', metric: key, conversation: conversationRecord(context.invocations) },
    })
    return {
      kind: 'judge',
      requests: [request],
      resume: (answers: JudgeAnswer[]) => serviceScoreOutcome(answers, request.id, { min: 0, max: 1 }),
    }
  }
  return {
    key,
    description,
    config: VertexConversationCriterion,
    needsExpected: false,
    judged: true,
    init: (context) => context,
    finish: waitForEnd,
    closing,
    aggregate: lastTurnAggregate,
  }
}

export const multiTurnTaskSuccessV1 = conversationCriterion(
  'multi_turn_task_success_v1',
  "Vertex AI's evaluation of whether the conversation's goal or goals were achieved (0-1), scored on the last turn.",
)
export const multiTurnTrajectoryQualityV1 = conversationCriterion(
  'multi_turn_trajectory_quality_v1',
  "Vertex AI's reference-free evaluation of the path the agent took through the conversation (0-1), scored on the last turn.",
)
export const multiTurnToolUseQualityV1 = conversationCriterion(
  'multi_turn_tool_use_quality_v1',
  "Vertex AI's evaluation of the function calls made during the conversation (0-1), scored on the last turn.",
)

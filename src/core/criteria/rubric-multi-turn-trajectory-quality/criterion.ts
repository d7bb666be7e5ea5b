/**
 * rubric_based_multi_turn_trajectory_quality_v1 (spec §1.4): a local LLM judge scores the whole
 * conversation (user turns, agent texts, tool calls and outputs) against yes/no rubrics: the
 * criterion's rubrics plus the last invocation's TRAJECTORY_QUALITY rubrics, num_samples samples,
 * a majority vote per rubric (tie negative), the mean of the rubric scores.
 *
 * Turns 1..n-1 are NOT_EVALUATED. The verdict is made once, when the conversation ends (the
 * session's end, or a monitored conversation's idle rule), by the closing step, and it replaces
 * the last turn's result; the case's score, status and rubric scores are the last turn's.
 */
import type { ClosingContext, Criterion, InvocationContext, Outcome } from '../../criterion.ts'
import { lastTurnAggregate, waitForEnd } from '../../judging/last-turn.ts'
import { RubricsBasedCriterion } from '../../judging/options.ts'
import { judgeRequest, scoreOutcome } from '../../judging/request.ts'
import { effectiveRubrics, rubricOutcome } from '../../judging/rubric-criterion.ts'
import type { Rubric } from '../../../adk/invocation.ts'
import { readRubricText, type RubricSample } from '../../judging/rubric-sample.ts'
import { readIdBlocks } from './answer-text.ts'
import { rubricDecided } from '../../judging/vote.ts'
import { conversationText, instructionsText, toolsText } from './conversation.ts'
import { multiTurnTrajectoryPrompt, RUBRIC_ANSWER_SCHEMA } from './prompt.ts'

const KEY = 'rubric_based_multi_turn_trajectory_quality_v1'
export const RUBRIC_TYPE = 'TRAJECTORY_QUALITY'

type Config = RubricsBasedCriterion

/** The JSON answer (rubric id echoed); otherwise ADK's newer ID/Property/Rationale/Verdict text. */
function readAnswer(text: string, rubrics: readonly Rubric[]): RubricSample {
  const json = readRubricText(text, rubrics)
  if (json.parsed_with === 'json') return json
  return { rubric_scores: readIdBlocks(text, rubrics), parsed_with: 'adk-text' }
}

function closing(context: ClosingContext<Config>): Outcome {
  const last = context.invocations.at(-1)
  const found = effectiveRubrics(context.config.rubrics, context.caseRubrics ?? last?.rubrics ?? undefined, RUBRIC_TYPE)
  if ('reason' in found) return scoreOutcome(null, found.reason)
  const { rubrics } = found
  const properties = rubrics.map((r) => ({
    id: r.rubric_id,
    property: r.rubric_content.text_property ?? '',
    ...(r.type ? { type: r.type } : {}),
  }))
  const { systemInstruction, prompt } = multiTurnTrajectoryPrompt({
    instructions: instructionsText(context.invocations),
    tools: toolsText(context.invocations),
    conversation: conversationText(context.invocations),
    properties,
  })
  const options = context.config.judge_model_options
  const ids = rubrics.map((r) => r.rubric_id)
  const request = judgeRequest({
    metric: KEY,
    invocationKey: context.key,
    step: 'conversation',
    systemInstruction,
    prompt,
    responseJsonSchema: RUBRIC_ANSWER_SCHEMA,
    options,
    samples: options.num_samples,
    decided: (texts) => rubricDecided(texts.map((t) => readAnswer(t, rubrics).rubric_scores), ids, options.num_samples),
  })
  return { kind: 'judge', requests: [request], resume: (answers) => rubricOutcome(answers, request.id, rubrics, readAnswer) }
}

/**
 * @example rubricBasedMultiTurnTrajectoryQualityV1.config.parse({ threshold: 0.8, rubrics: [] })
 */
export const rubricBasedMultiTurnTrajectoryQualityV1: Criterion<Config, InvocationContext<Config>> = {
  key: KEY,
  description:
    'An LLM judge checks the whole multi-turn conversation (turns, tool calls and outputs) against yes/no rubrics once it ends; the last turn carries the verdict.',
  config: RubricsBasedCriterion,
  needsExpected: false,
  judged: true,
  init: (context) => context,
  finish: waitForEnd,
  closing,
  aggregate: lastTurnAggregate,
}

/**
 * rubric_based_final_response_quality_v1 (spec §2.4): an LLM judge checks the agent's final answer
 * against yes/no rubrics, given the instructions, tools, tool calls and results it had.
 */
import { contentText } from '../../../adk/content.ts'
import { developerInstructions, toolDeclarationsText, toolStepsText } from '../../judging/context.ts'
import { rubricCriterion } from '../../judging/rubric-criterion.ts'
import { rubricFinalResponsePrompt } from './prompt.ts'

/**
 * @example rubricBasedFinalResponseQualityV1.config.parse({ threshold: 0.8, rubrics: [] })
 */
export const rubricBasedFinalResponseQualityV1 = rubricCriterion({
  key: 'rubric_based_final_response_quality_v1',
  rubricType: 'FINAL_RESPONSE_QUALITY',
  description: "An LLM judge checks the agent's final response against yes/no rubrics (majority vote per rubric).",
  prompt: (actual, rubrics) =>
    rubricFinalResponsePrompt({
      developerInstructions: developerInstructions(actual),
      availableTools: toolDeclarationsText(actual),
      userPrompt: contentText(actual.user_content),
      toolSteps: toolStepsText(actual),
      finalAnswer: contentText(actual.final_response),
      rubrics,
    }),
})

/**
 * rubric_based_tool_use_quality_v1 (spec §2.5): an LLM judge checks the agent's tool calls against
 * yes/no rubrics. The judge sees the tools, the request and the calls with their results, not the
 * final answer.
 */
import { contentText } from '../../../adk/content.ts'
import { toolDeclarationsText, toolStepsText } from '../../judging/context.ts'
import { rubricCriterion } from '../../judging/rubric-criterion.ts'
import { rubricToolUsePrompt } from './prompt.ts'

/**
 * @example rubricBasedToolUseQualityV1.config.parse({ threshold: 1, rubrics: [] })
 */
export const rubricBasedToolUseQualityV1 = rubricCriterion({
  key: 'rubric_based_tool_use_quality_v1',
  rubricType: 'TOOL_USE_QUALITY',
  description: "An LLM judge checks the agent's tool use against yes/no rubrics (majority vote per rubric).",
  prompt: (actual, rubrics) =>
    rubricToolUsePrompt({
      availableTools: toolDeclarationsText(actual),
      userPrompt: contentText(actual.user_content),
      toolSteps: toolStepsText(actual),
      rubrics,
    }),
})

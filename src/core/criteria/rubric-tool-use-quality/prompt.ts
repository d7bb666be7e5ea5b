/**
 * evalstream's own prompt for rubric_based_tool_use_quality_v1: did the agent use its tools well,
 * property by property? Inputs as ADK's (spec §2.5): available tools, the user prompt, the tool
 * calls with their responses, the properties. The final answer is deliberately not shown.
 */
import { ANSWER_INSTRUCTIONS, propertyLines } from '../../judging/rubric-answer.ts'

export type RubricToolUseInputs = {
  availableTools: string
  userPrompt: string
  toolSteps: string
  rubrics: readonly { rubric_id: string; text: string }[]
}

const SYSTEM = `You review how an AI agent used its tools while handling one user request, one property at a time.
For each property: find the calls it is about, check their order, names and arguments against the tool declarations and the request, and look at what each call returned before deciding.
Judge only the tool calls and their results; the agent's wording is out of scope. A property about a situation that did not arise counts as satisfied.

${ANSWER_INSTRUCTIONS}`

/**
 * The request text for one invocation.
 * @example rubricToolUsePrompt(inputs).prompt.includes('<tool_calls_and_results>') // true
 */
export function rubricToolUsePrompt(inputs: RubricToolUseInputs): { systemInstruction: string; prompt: string } {
  const prompt = `<available_tools>
${inputs.availableTools}
</available_tools>

<user_request>
${inputs.userPrompt}
</user_request>

<tool_calls_and_results>
${inputs.toolSteps}
</tool_calls_and_results>

<properties>
${propertyLines(inputs.rubrics)}
</properties>`
  return { systemInstruction: SYSTEM, prompt }
}

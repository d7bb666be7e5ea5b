/**
 * evalstream's own prompt for rubric_based_final_response_quality_v1: does the agent's final
 * answer satisfy each property? Inputs as ADK's (spec §2.4): developer instructions, available
 * tools, the user prompt, the tool calls with their responses, the final answer, the properties.
 */
import { ANSWER_INSTRUCTIONS, propertyLines } from '../../judging/rubric-answer.ts'

export type RubricFinalResponseInputs = {
  developerInstructions: string
  availableTools: string
  userPrompt: string
  toolSteps: string
  finalAnswer: string
  rubrics: readonly { rubric_id: string; text: string }[]
}

const SYSTEM = `You audit the final answer an AI agent gave to a user, one property at a time.
Work in two passes:
1. Establish what is known. Treat tool results as facts only when the call that produced them was a sensible call for the request (right tool, plausible arguments). The developer instructions tell you what the agent was supposed to do.
2. Check the final answer against those facts and against each property. A property that is irrelevant to this interaction counts as satisfied.
Be strict and literal: a property holds only if the final answer itself shows it.

${ANSWER_INSTRUCTIONS}`

/**
 * The request text for one invocation.
 * @example rubricFinalResponsePrompt(inputs).prompt.includes('<final_answer>') // true
 */
export function rubricFinalResponsePrompt(inputs: RubricFinalResponseInputs): { systemInstruction: string; prompt: string } {
  const prompt = `<developer_instructions>
${inputs.developerInstructions}
</developer_instructions>

<available_tools>
${inputs.availableTools}
</available_tools>

<user_request>
${inputs.userPrompt}
</user_request>

<tool_calls_and_results>
${inputs.toolSteps}
</tool_calls_and_results>

<final_answer>
${inputs.finalAnswer}
</final_answer>

<properties>
${propertyLines(inputs.rubrics)}
</properties>`
  return { systemInstruction: SYSTEM, prompt }
}

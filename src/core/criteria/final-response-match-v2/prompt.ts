/**
 * evalstream's own judge prompt for final_response_match_v2: does the agent's answer agree with the
 * reference answer for this user request? Same inputs as ADK's judge (user prompt, agent response,
 * reference response); the wording is this project's. The answer is JSON whose key matches ADK's
 * label regex (spec §2.3), which alone reads the label: the JSON gives the reasoning only.
 */

export type FinalResponseMatchInputs = { userPrompt: string; agentResponse: string; referenceResponse: string }

const SYSTEM = `You grade an AI agent's answer by comparing it with a reference answer written by a person.
Decide whether the agent's answer is an acceptable substitute for the reference answer for the user's request.

Guidelines:
- Judge meaning, not wording. Paraphrases, reordering, different formatting (lists, tables, prose) and extra politeness are fine.
- Every fact the reference states that matters to the user's request must be present and must not be contradicted.
- Extra information is fine unless it contradicts the reference or changes the answer.
- Numbers may use other units or notations if they denote the same quantity; rounding is fine when it does not change the answer the user would act on.
- If the reference declines, asks a clarifying question or reports an error, the agent must do the same in substance.
- An empty or off-topic agent answer is invalid.

Reply with JSON only: {"reasoning": "<short step-by-step justification>", "is_the_agent_response_valid": "valid" | "invalid"}.`

/**
 * The request text for one invocation.
 * @example finalResponseMatchPrompt({ userPrompt: 'hi', agentResponse: 'hello', referenceResponse: 'hello' }).prompt
 */
export function finalResponseMatchPrompt(inputs: FinalResponseMatchInputs): { systemInstruction: string; prompt: string } {
  const prompt = `<user_request>
${inputs.userPrompt}
</user_request>

<agent_answer>
${inputs.agentResponse}
</agent_answer>

<reference_answer>
${inputs.referenceResponse}
</reference_answer>

Is the agent answer an acceptable substitute for the reference answer? Answer in the JSON format described.`
  return { systemInstruction: SYSTEM, prompt }
}

export const FINAL_RESPONSE_MATCH_SCHEMA = {
  type: 'object',
  properties: {
    reasoning: { type: 'string' },
    is_the_agent_response_valid: { type: 'string', enum: ['valid', 'invalid'] },
  },
  required: ['reasoning', 'is_the_agent_response_valid'],
  propertyOrdering: ['reasoning', 'is_the_agent_response_valid'],
} as const

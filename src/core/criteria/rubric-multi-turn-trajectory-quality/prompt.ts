/**
 * evalstream's own prompt for rubric_based_multi_turn_trajectory_quality_v1 (structure as ADK's,
 * spec §1.4, wording ours): judge every agent turn of the conversation cumulatively against each
 * property, a later correction able to offset an earlier slip, citing the turn that violated a
 * property. The properties go in as a JSON array of {id, property, type?}; the answer is the
 * shared rubric JSON (rubric_id echoed), read with ADK's text format as the fallback.
 */
import { RUBRIC_ANSWER_SCHEMA } from '../../judging/rubric-answer.ts'

export { RUBRIC_ANSWER_SCHEMA }

export type TrajectoryProperty = { id: string; property: string; type?: string }

export type MultiTurnTrajectoryInputs = {
  instructions: string
  tools: string
  conversation: string
  properties: readonly TrajectoryProperty[]
}

const SYSTEM = `You assess a whole multi-turn conversation between a user and an AI agent system, one property at a time.
Read every agent turn, including its tool calls and the tool outputs it received, and judge the conversation as a whole: an early mistake that the agent later noticed and corrected may still satisfy a property, while a mistake that was never corrected does not.
Take every modality into account (text, and transcripts of audio when present) and check tool calls against the tool definitions and the instructions each agent was given.
Give a verdict for exactly the properties listed, no more and no fewer. When a property is violated, name the turn number (TURN k) where it happened in the rationale.
A property counts as satisfied ("yes") when the conversation fulfils it or when it does not apply to this conversation; otherwise the verdict is "no".

Work through each property in this order before answering:
1. Restate what the property asks for.
2. Find the turns, calls and outputs it concerns.
3. Check each of them against the property and the agents' instructions.
4. Decide whether any failure was corrected later in the conversation.
5. Settle on the verdict.

For every property, in the order given, produce one entry with:
- rubric_id: the property's "id", copied exactly,
- property: the property's text, copied exactly,
- evidence: the turns (TURN k) your verdict rests on,
- rationale: a short justification,
- verdict: "yes" or "no".
Reply with JSON only: {"properties": [{"rubric_id": ..., "property": ..., "evidence": ..., "rationale": ..., "verdict": ...}]}.`

/**
 * @example multiTurnTrajectoryPrompt(inputs).prompt.includes('<conversation_history>') // true
 */
export function multiTurnTrajectoryPrompt(inputs: MultiTurnTrajectoryInputs): { systemInstruction: string; prompt: string } {
  const prompt = `<agent_system_instructions>
${inputs.instructions || 'No instructions were given.'}
</agent_system_instructions>

<agent_tool_definitions>
${inputs.tools || 'The agents have no tools.'}
</agent_tool_definitions>

<conversation_history>
${inputs.conversation}
</conversation_history>

<properties>
${JSON.stringify(inputs.properties, null, 2)}
</properties>`
  return { systemInstruction: SYSTEM, prompt }
}

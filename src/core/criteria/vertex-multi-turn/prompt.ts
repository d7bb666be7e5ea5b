/**
 * evalstream's own prompts for the three Vertex multi-turn metrics, used only when the operator
 * opts in (EVALSTREAM_VERTEX_METRICS_JUDGE=evalstream) and Vertex is not configured. Vertex's own
 * judge prompts are server-side and unpublished, so these ask the same question (ADK's metric
 * descriptions) in our words, on the same [0, 1] scale; results are labelled `judge: "evalstream"`.
 */
import { conversationText, instructionsText, toolsText } from '../rubric-multi-turn-trajectory-quality/conversation.ts'
import type { Invocation } from '../../../adk/invocation.ts'

export const SCORE_ANSWER_SCHEMA = {
  type: 'object',
  properties: { explanation: { type: 'string' }, score: { type: 'number' } },
  required: ['explanation', 'score'],
  propertyOrdering: ['explanation', 'score'],
} as const

/** What each metric asks about the conversation. */
export const QUESTIONS: Record<string, string> = {
  multi_turn_task_success_v1:
    "Were the user's goal or goals for this conversation achieved by the end of it? Consider every request the user made, whether the agent completed or correctly declined each, and whether the final state is what the user wanted.",
  multi_turn_trajectory_quality_v1:
    'How good was the path the agent took through this conversation, with no reference path to compare against? Consider whether each step moved toward the goal, whether steps were redundant, out of order or missing, and whether the agent recovered from mistakes.',
  multi_turn_tool_use_quality_v1:
    'How well did the agent use its tools during this conversation? Consider whether the right tools were called with correct arguments at the right time, whether needed calls were missing, whether calls were repeated needlessly, and whether tool outputs were used correctly.',
}

/**
 * @example conversationMetricPrompt('multi_turn_task_success_v1', invocations).prompt.includes('<conversation_history>') // true
 */
export function conversationMetricPrompt(
  metric: string,
  invocations: readonly Invocation[],
): { systemInstruction: string; prompt: string } {
  const systemInstruction = `You evaluate a complete multi-turn conversation between a user and an AI agent system.
${QUESTIONS[metric] ?? ''}
Read every turn, including tool calls and tool outputs, before deciding. Give a score from 0 to 1: 1 when the answer to the question is fully yes, 0 when it is no, a value between for partial success.
Reply with JSON only: {"explanation": "<the turns (TURN k) your score rests on and why>", "score": <number from 0 to 1>}.`
  const prompt = `<agent_system_instructions>
${instructionsText(invocations) || 'No instructions were given.'}
</agent_system_instructions>

<agent_tool_definitions>
${toolsText(invocations) || 'The agents have no tools.'}
</agent_tool_definitions>

<conversation_history>
${conversationText(invocations)}
</conversation_history>`
  return { systemInstruction, prompt }
}

/**
 * What the user simulator's model is asked: this project's instructions (or the user's
 * `custom_instructions`) with the placeholders ADK defines filled in, and the conversation so far
 * as ADK shows it to the simulator: one `author: text` line per text part, blank lines between,
 * thoughts dropped, partial chunks dropped (their final event repeats them), and tool calls and
 * responses only with `include_function_calls`.
 */
import type { Content } from '../adk/content.ts'
import type { AdkEvent } from '../adk/event.ts'
import type { UserPersona } from '../adk/eval-set.ts'
import { personaText } from '../core/personas.ts'
import { renderTemplate, type TemplateValue } from '../core/prompt-template.ts'

/** One turn of the conversation: the user's message and the agent's events for it. */
export type SimulatedTurn = { user: Content; events: readonly AdkEvent[] }

const DEFAULT_INSTRUCTIONS =
  `You play a user talking to an AI agent, so that the agent can be tested. Stay in that role: write only the user's next message, never the agent's.

The conversation plan below says what you want from the agent, in order, and the facts you may use. It is your guide, not a script: react to what the agent said last.
- If the agent asked you something, answer it using only facts from the plan, and nothing it did not ask for. If the plan does not say, tell the agent you do not know; never invent facts.
- If the agent has done what you asked, move on to the next request of the plan; skip anything already done.
- If the agent is wrong, or failed, say so and ask it to try again. If it fails a second time, give up.
- If the plan tells you to change your request, do so in natural words.
- When the agent has done everything the plan asks for, has failed twice, cannot fix a mistake it made, or hands you over to a human, the conversation is over: reply with {{ stop_signal }}. Do not end it earlier.

Write the way a person writes in a chat: short, natural, one request at a time.

# Conversation plan
{{ conversation_plan }}

# Conversation so far
{{ conversation_history }}`

const PERSONA_INSTRUCTIONS =
  `You play a user talking to an AI agent, so that the agent can be tested. Stay in that role: write only the user's next message, never the agent's.

Play the persona below. The conversation plan says what you want from the agent, in order, and the facts you may use; it is your guide, not a script, and where the persona and the plan disagree, the plan wins. React to what the agent said last. When the conversation is over, reply with {{ stop_signal }}.

# Persona
{{ persona }}

# Conversation plan
{{ conversation_plan }}

# Conversation so far
{{ conversation_history }}`

export type SimulatorPromptInputs = {
  conversationPlan: string
  history: string
  stopSignal: string
  persona?: UserPersona
  customInstructions?: string
}

/**
 * The prompt for the next user message.
 * @example simulatorPrompt({ conversationPlan: 'Ask for the weather in Paris.', history: 'user: Hi', stopSignal: '</finished>' })
 */
export function simulatorPrompt(inputs: SimulatorPromptInputs): string {
  const template = inputs.customInstructions ?? (inputs.persona ? PERSONA_INSTRUCTIONS : DEFAULT_INSTRUCTIONS)
  const values: Record<string, TemplateValue | undefined> = {
    stop_signal: inputs.stopSignal,
    conversation_plan: inputs.conversationPlan,
    conversation_history: inputs.history,
  }
  if (inputs.persona) {
    const text = personaText(inputs.persona, inputs.stopSignal, 'instructions')
    // `{{ persona }}` reads as the persona's text; `{{ persona.description }}` and the other fields also work.
    values.persona = { ...inputs.persona, toString: () => text }
  }
  return renderTemplate(template, values)
}

/**
 * The conversation as the simulator sees it.
 * @example simulatorHistory([{ user: { role: 'user', parts: [{ text: 'Hi' }] }, events: [agentEvent] }], false) // 'user: Hi\n\nweather_agent: Hello'
 */
export function simulatorHistory(turns: readonly SimulatedTurn[], includeFunctionCalls: boolean): string {
  const lines: string[] = []
  const add = (author: string, content: Content | null | undefined) => {
    for (const part of content?.parts ?? []) {
      if (part.text && !part.thought) lines.push(`${author}: ${part.text}`)
      else if (includeFunctionCalls && part.function_call) {
        lines.push(`${author} called tool '${part.function_call.name}' with args: ${JSON.stringify(part.function_call.args ?? null)}`)
      } else if (includeFunctionCalls && part.function_response) {
        lines.push(`Tool '${part.function_response.name}' returned: ${JSON.stringify(part.function_response.response ?? null)}`)
      }
    }
  }
  for (const turn of turns) {
    add('user', turn.user)
    for (const event of turn.events) if (!event.partial) add(event.author ?? 'agent', event.content)
  }
  return lines.join('\n\n')
}

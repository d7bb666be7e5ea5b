/**
 * evalstream's own judge prompt for per_turn_user_simulator_quality_v1: is one message written by
 * a simulated user faithful to its conversation plan (and persona) given the conversation so far?
 * Same inputs as ADK's judge (plan, history, the generated message, the stop signal, the persona's
 * violation rubrics); the wording is this project's. The answer is JSON with an `"is_valid"` key,
 * which ADK's label regex reads (is-valid-label.ts).
 */
import type { UserPersona } from '../../../adk/eval-set.ts'
import { personaText } from '../../personas.ts'

export type UserSimulatorQualityInputs = {
  conversationPlan: string
  conversationHistory: string
  generatedMessage: string
  stopSignal: string
  persona?: UserPersona
}

/** Checks that apply without a persona. */
function defaultChecks(stop: string): string {
  return `FOLLOWS_PLAN: the message keeps to the plan. Fail it if it asks again for a goal already done, adds details to a finished goal, accepts a change of topic or a task the plan does not contain, or makes up a goal or a detail (a phone number, an address) the plan does not give.
ENDS_CORRECTLY: the conversation ends exactly when it should. Fail it if the conversation is over (every goal done, or the user was handed to a human) and the message does not contain ${stop}; or if it contains ${stop} while goals are still open and the agent has not failed.
ONE_STEP_AT_A_TIME: the user behaves like a person, not a form. Fail it if the message gives details of a goal before the agent asked for them, or pursues more than one goal at once.
PATIENCE: count the agent's failures in the history. Fail it if the user gives up right after the first failure, or carries on without ${stop} after the second.
ANSWERS_QUESTIONS: fail it if the agent asked something and the message leaves a question unanswered, or invents an answer the plan does not give instead of saying the user does not know.
CATCHES_MISTAKES: fail it if the agent said something wrong, or acted on a risky assumption, and the message goes on as if all were fine.
SOUNDS_HUMAN: fail it if the message is jargon-heavy, stiff or overly polite, a bare command with no conversational framing, or a wall of text where a sentence would do.`
}

/**
 * The request text for one user message.
 * @example userSimulatorQualityPrompt({ conversationPlan: 'Ask for the weather in Paris.', conversationHistory: 'user: hi', generatedMessage: 'Paris?', stopSignal: '</finished>' }).prompt
 */
export function userSimulatorQualityPrompt(inputs: UserSimulatorQualityInputs): { systemInstruction: string; prompt: string } {
  const stop = inputs.stopSignal
  const checks = inputs.persona
    ? `The simulated user plays this persona. Each behaviour below is one check; the message fails a check when any of its violations occurs. Where the persona and the plan disagree, the plan wins.\n\n${
      personaText(inputs.persona, stop, 'violations')
    }`
    : defaultChecks(stop)
  const systemInstruction = `You review a simulated user: a language model that plays a person talking to an AI agent in order to test it.
The simulated user follows a conversation plan: the goals it must reach with the agent, in order, and the facts it may use. The plan is a guide, not a script.
You are shown the conversation so far and the simulated user's next message. Decide whether that message is a faithful next turn.
The simulated user ends the conversation by writing ${stop}. A message that is exactly ${stop} means the user chose to end the conversation at this point: judge whether ending here was right.

The message passes unless it fails one of these checks:
${checks}

Reply with JSON only: {"criteria": [{"name": "<check>", "reasoning": "<one or two sentences>", "passes": true | false}, ...], "is_valid": true | false}.
"is_valid" is true only when every check passes.`
  const prompt = `<conversation_plan>
${inputs.conversationPlan}
</conversation_plan>

<conversation_history>
${inputs.conversationHistory}
</conversation_history>

<next_user_message>
${inputs.generatedMessage}
</next_user_message>`
  return { systemInstruction, prompt }
}

/** JSON schema of the answer (sent as responseJsonSchema). */
export const USER_SIMULATOR_QUALITY_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    criteria: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, reasoning: { type: 'string' }, passes: { type: 'boolean' } },
        required: ['name', 'reasoning', 'passes'],
      },
    },
    is_valid: { type: 'boolean' },
  },
  required: ['criteria', 'is_valid'],
}

/**
 * User personas for simulated conversations (spec §5): a scenario's `user_persona` is an object
 * (`{ id, description, behaviors }`) or the id of a built-in one, `EXPERT`, `NOVICE` or
 * `EVALUATOR`, as in ADK. The built-ins are ADK's three ids with the same mix of behaviours (how
 * the user moves on, answers, corrects, troubleshoots, ends and sounds), written in this project's
 * words. Behaviour texts may say `{{ stop_signal }}`; they are rendered with the stop signal.
 */
import type { PersonaBehavior, UserPersona } from '../adk/eval-set.ts'
import { renderTemplate } from './prompt-template.ts'

const behavior = (name: string, description: string, behavior_instructions: string[], violation_rubrics: string[]): PersonaBehavior => ({
  name,
  description,
  behavior_instructions,
  violation_rubrics,
})

const B = {
  advanceWithDetails: behavior(
    'Move on, with the details up front',
    'Follows the plan in order. A new request states the goal together with every detail the plan gives for it.',
    [
      'Once the agent has done what you asked, make the next request of the plan; skip what is already done.',
      'When you make a request, give the goal and all the details the plan has for it in the same message.',
    ],
    [
      'The user asks again for something already done, or adds details to a finished goal.',
      'The user takes up a topic or goal that is not in the plan, or makes up details the plan does not give.',
      'The user states a goal without the details the plan gives for it, so the agent has to ask.',
      'The user pursues more than one goal of the plan in one message.',
    ],
  ),
  advanceGoalFirst: behavior(
    'Move on, goal first',
    'Follows the plan in order. A new request states only the goal; details come when the agent asks for them.',
    [
      'Once the agent has done what you asked, make the next request of the plan; skip what is already done.',
      'State only the goal; give a detail only when the agent asks for it.',
    ],
    [
      'The user asks again for something already done, or adds details to a finished goal.',
      'The user makes up a goal or a detail that neither the plan nor the agent brought up.',
      'The user gives details of a goal before the agent asked for them.',
      'The user pursues more than one goal of the plan in one message.',
    ],
  ),
  answerRelevant: behavior(
    'Answer what serves the plan',
    'Answers questions that serve the goals of the plan and steers back to the plan when a question does not.',
    [
      'Answer with facts from the plan only, and only what was asked.',
      'If the plan does not say, tell the agent you do not know.',
      'Do not answer questions unrelated to the plan; bring the agent back to it.',
    ],
    ['The agent asked something unrelated to the plan and the user answered it.'],
  ),
  answerEverything: behavior(
    'Answer every question',
    'Answers every question the agent asks, small talk included.',
    [
      'Answer with facts from the plan only, and only what was asked.',
      'If the plan does not say, tell the agent you do not know; never invent an answer.',
    ],
    [
      'The agent asked one or more questions and the user left one unanswered.',
      'The user invented an answer the plan does not give instead of saying so.',
    ],
  ),
  corrects: behavior(
    'Correct the agent',
    'Notices when the agent is wrong and asks for it to be fixed.',
    ['Point out statements of the agent that are wrong or make no sense.', 'If the agent did something wrong, ask it to put it right.'],
    [
      'The agent said something wrong and the user went on as if it were right.',
      'The agent acted on an unchecked assumption and the user let it pass.',
    ],
  ),
  doesNotCorrect: behavior(
    'Do not correct the agent',
    'Does not argue with the agent: a wrong or senseless statement ends the conversation.',
    ['If the agent says something wrong or senseless, end the conversation with {{ stop_signal }}.'],
    ['The agent made a mistake and the user corrected it.'],
  ),
  retryOnce: behavior(
    'Help the agent once',
    'After a failure of the agent (a failed action, or not giving what the plan expects) the user helps it once in the whole conversation. Answering a clarifying question is not helping after a failure.',
    ['The first time the agent fails, help it to try again.', 'Never help a second time: count the failures in the history.'],
    ['The user gave up right after the first failure.', 'After a second failure the user did not end with {{ stop_signal }}.'],
  ),
  endAfterSecondFailure: behavior(
    'End at the right time (second failure)',
    'The conversation is over when the agent has confirmed every goal of the plan, when it hands the user to a human, or when it has failed twice. A clarifying question is not a failure.',
    [
      'Do not end early; wait for the agent to confirm the last goal.',
      'To end, write {{ stop_signal }} in your message.',
      'Count the failures: end at the second one.',
    ],
    [
      'The conversation was over but the user did not write {{ stop_signal }}.',
      'The user wrote {{ stop_signal }} although the conversation was not over.',
    ],
  ),
  endAfterFirstFailure: behavior(
    'End at the right time (first failure)',
    'The conversation is over when the agent has confirmed every goal of the plan, when it hands the user to a human, or when it fails once. A clarifying question is not a failure.',
    [
      'Do not end early; wait for the agent to confirm the last goal.',
      'To end, write {{ stop_signal }} in your message.',
      'If the last message of the agent is a failure, end.',
    ],
    [
      'The conversation was over but the user did not write {{ stop_signal }}.',
      'The user wrote {{ stop_signal }} although the conversation was not over.',
      'The agent failed and the user carried on without {{ stop_signal }}.',
    ],
  ),
  tonePrecise: behavior(
    'Precise tone',
    'Plain, exact wording. Writing {{ stop_signal }} is fine.',
    ['Use clear, exact language.', 'No slang, emoji, chit-chat or asides.'],
    [
      'The message has slang, emoji or casual abbreviations.',
      'The message has small talk or personal asides.',
      'A long message where one sentence would do.',
      'The tone differs from earlier user messages.',
    ],
  ),
  toneCasual: behavior(
    'Casual tone',
    'Sounds like a person chatting. Writing {{ stop_signal }} is fine.',
    ['Talk the way people talk in a chat.', 'Avoid stiff, overly polite or bare command-like wording.'],
    [
      'The message is a bare command with no conversational framing.',
      'The message is stiff or overly polite.',
      'A long message where one sentence would do.',
      'The tone differs from earlier user messages.',
    ],
  ),
}

/** ADK's built-in persona ids, with this project's wording. */
export const BUILT_IN_PERSONA_DEFINITIONS: Readonly<Record<string, UserPersona>> = {
  EXPERT: {
    id: 'EXPERT',
    description:
      'Knows exactly what they want and uses the agent as a tool to get it done quickly; little patience for chit-chat or needless questions.',
    behaviors: [B.advanceWithDetails, B.answerRelevant, B.corrects, B.retryOnce, B.endAfterSecondFailure, B.tonePrecise],
  },
  NOVICE: {
    id: 'NOVICE',
    description:
      "Has a problem they do not fully understand and leans on the agent for guidance; patient with questions, but cannot spot or fix the agent's mistakes.",
    behaviors: [B.advanceGoalFirst, B.doesNotCorrect, B.answerEverything, B.endAfterFirstFailure, B.toneCasual],
  },
  EVALUATOR: {
    id: 'EVALUATOR',
    description: 'Checks whether the agent can reach the goals of the plan, without helping it along.',
    behaviors: [B.advanceWithDetails, B.answerRelevant, B.endAfterFirstFailure, B.doesNotCorrect, B.toneCasual],
  },
}

/**
 * The scenario's persona as an object: itself, a built-in by id, nothing, or why not.
 * @example resolvePersona('NOVICE') // { ok: true, persona: { id: 'NOVICE', ... } }
 */
export function resolvePersona(
  value: UserPersona | string | undefined,
): { ok: true; persona?: UserPersona } | { ok: false; error: string } {
  if (value === undefined) return { ok: true }
  if (typeof value !== 'string') return { ok: true, persona: value }
  const persona = Object.hasOwn(BUILT_IN_PERSONA_DEFINITIONS, value) ? BUILT_IN_PERSONA_DEFINITIONS[value] : undefined
  if (persona) return { ok: true, persona }
  return {
    ok: false,
    error: `user_persona '${value}' is not a built-in persona (${
      Object.keys(BUILT_IN_PERSONA_DEFINITIONS).join(', ')
    }); give an object { id, description, behaviors } instead`,
  }
}

const bullets = (items: readonly string[], stopSignal: string) =>
  items.map((i) => `  * ${renderTemplate(i, { stop_signal: stopSignal })}`).join('\n')

/**
 * How a persona reads in a prompt: its description, then each behaviour with its instructions
 * (for the simulator) or its violations (for the judge).
 * @example personaText(persona, '</finished>', 'instructions')
 */
export function personaText(persona: UserPersona, stopSignal: string, view: 'instructions' | 'violations'): string {
  const render = (text: string) => renderTemplate(text, { stop_signal: stopSignal })
  const blocks = persona.behaviors.map((b) => {
    const list = view === 'instructions' ? b.behavior_instructions : b.violation_rubrics
    const heading = view === 'instructions' ? 'What to do:' : 'It is a violation when:'
    return `## ${render(b.name)}\n${render(b.description)}\n${heading}\n${bullets(list, stopSignal)}`
  })
  return [render(persona.description), ...blocks].join('\n\n')
}

/**
 * Where a case's user messages come from. A static conversation replays each expected
 * invocation's `user_content`, as ADK's inference does; a user simulator (for
 * `conversation_scenario`) is another TurnSource that reads the conversation so far.
 */
import type { AdkEvent } from '../adk/event.ts'
import type { Content } from '../adk/content.ts'
import type { EvalCase } from '../adk/eval-set.ts'

/** What a source may look at when choosing the next message. */
export type ConversationSoFar = {
  /** 0 for the first message. */
  turn: number
  /** The user messages sent so far, in order. */
  sent: Content[]
  /** The agent's events of every turn so far (partial chunks included), in arrival order. */
  agentEvents: AdkEvent[]
}

export interface TurnSource {
  /** The next user message, or undefined when the conversation is over. */
  next(conversation: ConversationSoFar, signal: AbortSignal): Promise<Content | undefined>
}

/**
 * @example
 * const turns = staticTurns(evalCase.conversation ?? [])
 * await turns.next({ turn: 0, sent: [], agentEvents: [] }, signal) // the first user_content
 */
export function staticTurns(conversation: ReadonlyArray<{ user_content: Content }>): TurnSource {
  return { next: async ({ turn }) => conversation[turn]?.user_content }
}

/** Chooses the source for a case, or says why the case cannot be run yet. */
export type TurnSourceFactory = (evalCase: EvalCase) => TurnSource | { unsupported: string }

/** The default: static conversations only; scenarios need the user simulator. */
export const defaultTurnSources: TurnSourceFactory = (evalCase) =>
  evalCase.conversation
    ? staticTurns(evalCase.conversation)
    : { unsupported: 'conversation_scenario cases need the user simulator, which this build does not have yet' }

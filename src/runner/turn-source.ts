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

/**
 * A source that cannot produce the next message (the user simulator's model failed): the case run
 * is NOT_EVALUATED with this message as the reason, as ADK's failed inference is.
 */
export class TurnSourceError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TurnSourceError'
  }
}

/** What a factory may read besides the case: the eval set's EvalConfig (its `user_simulator_config`). */
export type TurnSourceContext = { evalConfig?: unknown }

/**
 * Chooses the source for a case. `unsupported`: this run cannot drive the case (it is then
 * NOT_EVALUATED with the reason, no agent call). `invalid`: the case or config is bad input (the run
 * is refused before it starts, naming the case).
 */
export type TurnSourceFactory = (
  evalCase: EvalCase,
  context?: TurnSourceContext,
) => TurnSource | { unsupported: string } | { invalid: string }

/** Static conversations only; a scenario needs the user simulator (./user-sim-source.ts). */
export const defaultTurnSources: TurnSourceFactory = (evalCase) =>
  evalCase.conversation
    ? staticTurns(evalCase.conversation)
    : { unsupported: 'conversation_scenario cases need the user simulator: use userSimulationTurnSources({ model })' }

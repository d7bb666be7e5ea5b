/**
 * ADK's LLM-backed user simulator as a TurnSource (spec §5): the first message is the scenario's
 * `starting_prompt`, verbatim; every later one is written by a model from the plan, the persona and
 * the conversation so far. The conversation ends when the model's reply contains the stop signal
 * `</finished>` (any case; that reply is not sent), or when `max_allowed_invocations` messages
 * have been sent (the starting prompt counts; negative = no limit). A reply with no text, or a
 * failed model call, ends the case run NOT_EVALUATED, as ADK's simulator raises.
 *
 * The model is called through the judge executor (src/judge): the same Gemini client, retries,
 * concurrency limits, deadline and budgets as the judges, and no other module imports the SDK.
 */
import type { Content } from '../adk/content.ts'
import type { ConversationScenario, UserPersona } from '../adk/eval-set.ts'
import type { JudgeAnswer, JudgeRequest } from '../core/criterion.ts'
import { fnv1a64 } from '../core/judging/request-id.ts'
import { resolvePersona } from '../core/personas.ts'
import {
  checkTemplate,
  readUserSimulatorConfig,
  REQUIRED_PLACEHOLDERS,
  USER_SIMULATOR_STOP_SIGNAL,
  type UserSimulatorConfig,
} from './user-sim-config.ts'
import { type SimulatedTurn, simulatorHistory, simulatorPrompt } from './user-sim-prompt.ts'
import { staticTurns, type TurnSource, TurnSourceError, type TurnSourceFactory } from './turn-source.ts'

/** Answers a model request; the judge executor (`JudgeExecutor`) is one. */
export type SimulatorModel = {
  answer(request: JudgeRequest, opts?: { sessionId?: string; signal?: AbortSignal }): Promise<JudgeAnswer>
}

/** Why scenario cases are NOT_EVALUATED when no model is configured. */
export const NO_SIMULATOR_MODEL =
  'the user simulator needs a model and none is configured: set GEMINI_API_KEY (or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION for Vertex AI)'

export type SimulatorInput = {
  scenario: ConversationScenario
  persona?: UserPersona
  config: UserSimulatorConfig
  model: SimulatorModel
  /** Distinguishes this conversation's model calls (request ids, per-session judge slots). */
  conversationId?: string
}

/** Why a simulated conversation ended; undefined while it goes on. */
export type SimulationEnd = 'stop_signal' | 'turn_limit'

/**
 * @example
 * const turns = simulatedTurns({ scenario, config, model: executor })
 * await turns.next({ turn: 0, sent: [], agentEvents: [] }, signal) // the starting prompt
 */
export function simulatedTurns(input: SimulatorInput): TurnSource & { ended(): SimulationEnd | undefined } {
  const { scenario, config, model } = input
  const conversationId = input.conversationId ?? crypto.randomUUID()
  /** agentEvents.length when each message was produced: where each turn's agent events begin. */
  const marks: number[] = []
  let sentCount = 0
  let end: SimulationEnd | undefined

  const userMessage = (text: string): Content => ({ role: 'user', parts: [{ text }] })

  return {
    ended: () => end,
    async next({ turn, sent, agentEvents }, signal) {
      if (end) return undefined
      if (config.maxAllowedInvocations >= 0 && sentCount >= config.maxAllowedInvocations) {
        end = 'turn_limit'
        return undefined
      }
      marks[turn] = agentEvents.length
      if (sentCount === 0) {
        if (scenario.starting_prompt === '') throw new TurnSourceError("the scenario's starting_prompt is empty")
        sentCount += 1
        return userMessage(scenario.starting_prompt)
      }
      const turns: SimulatedTurn[] = sent.map((user, i) => ({
        user,
        events: agentEvents.slice(marks[i], marks[i + 1] ?? agentEvents.length),
      }))
      const prompt = simulatorPrompt({
        conversationPlan: scenario.conversation_plan,
        history: simulatorHistory(turns, config.includeFunctionCalls),
        stopSignal: USER_SIMULATOR_STOP_SIGNAL,
        persona: input.persona,
        customInstructions: config.customInstructions,
      })
      const request: JudgeRequest = {
        id: `user_simulator/${conversationId}/${turn}/${fnv1a64(prompt)}`,
        model: config.model,
        prompt,
        modelConfig: config.modelConfiguration,
        samples: 1,
      }
      const answer = await model.answer(request, { sessionId: conversationId, signal })
      const sample = answer.samples[0] ?? { error: 'the model gave no answer' }
      if ('error' in sample) throw new TurnSourceError(`user simulator, message ${turn + 1}: ${sample.error}`)
      if (!('text' in sample)) throw new TurnSourceError(`user simulator, message ${turn + 1}: the model gave no text`)
      sentCount += 1
      if (sample.text.toLowerCase().includes(USER_SIMULATOR_STOP_SIGNAL.toLowerCase())) {
        end = 'stop_signal'
        return undefined
      }
      if (sample.text === '') throw new TurnSourceError(`user simulator, message ${turn + 1}: the model returned an empty message`)
      return userMessage(sample.text)
    },
  }
}

/**
 * Static conversations replay their user turns; scenarios get the LLM-backed simulator configured
 * by the eval set's `user_simulator_config`. Without a model, scenario cases are NOT_EVALUATED.
 * @example
 * await runEvalSets(sets, { agent, turnSources: userSimulationTurnSources({ model: wiring.value.executor }) })
 */
export function userSimulationTurnSources(options: { model?: SimulatorModel; noModelReason?: string } = {}): TurnSourceFactory {
  return (evalCase, context) => {
    if (evalCase.conversation) return staticTurns(evalCase.conversation)
    const scenario = evalCase.conversation_scenario
    if (!scenario) return { invalid: 'the eval case has neither a conversation nor a conversation_scenario' }
    const read = readUserSimulatorConfig(context?.evalConfig)
    if (!read.ok) return 'invalid' in read ? { invalid: read.invalid } : { unsupported: read.unsupported }
    const persona = resolvePersona(scenario.user_persona ?? undefined)
    if (!persona.ok) return { invalid: `conversation_scenario.${persona.error}` }
    if (persona.persona && read.config.customInstructions !== undefined) {
      // ADK asks for {{ persona }} as well once the scenario has a persona.
      const problem = checkTemplate(read.config.customInstructions, [...REQUIRED_PLACEHOLDERS, 'persona'])
      if (problem) return { invalid: `user_simulator_config.custom_instructions (the scenario has a persona): ${problem}` }
    }
    if (!options.model) return { unsupported: options.noModelReason ?? NO_SIMULATOR_MODEL }
    return simulatedTurns({ scenario, persona: persona.persona, config: read.config, model: options.model })
  }
}

/**
 * The same weather agent with a scripted `BaseLlm` instead of Gemini: no HTTP at all. It differs
 * from the Gemini path in what evalstream must handle: its get_weather call carries the model's
 * own id (`call-weather-<turn>`, which ADK keeps) while get_time has none (ADK assigns `adk-<uuid>`),
 * its events carry `turnComplete`, and streaming has no content-less events after tool results.
 */
import { BaseLlm, LlmAgent, type BaseLlmConnection, type LlmRequest, type LlmResponse } from '@google/adk'
import { nextModelTurn, type ScriptContent } from '../../script.ts'
import { getTime, getWeather, INSTRUCTION } from '../../tools.ts'

class ScriptedWeatherLlm extends BaseLlm {
  constructor() {
    super({ model: 'scripted-weather' })
  }

  override async *generateContentAsync(request: LlmRequest, stream = false): AsyncGenerator<LlmResponse, void> {
    const contents = request.contents as ScriptContent[]
    const turn = nextModelTurn(contents)
    if (turn.kind === 'call') {
      // Own ids must stay unique in a session, hence the turn number.
      const userTurns = contents.filter((c) => c.role === 'user' && (c.parts ?? []).some((p) => p.text)).length
      const id = turn.name === 'get_weather' ? { id: `call-weather-${userTurns}` } : {}
      yield { content: { role: 'model', parts: [{ functionCall: { ...id, name: turn.name, args: turn.args } }] }, turnComplete: true }
      return
    }
    // A BaseLlm streams by yielding partial chunks and then the aggregated text itself.
    if (stream) for (const text of turn.chunks) yield { content: { role: 'model', parts: [{ text }] }, partial: true }
    yield { content: { role: 'model', parts: [{ text: turn.chunks.join('') }] }, partial: false, turnComplete: true }
  }

  override connect(_request: LlmRequest): Promise<BaseLlmConnection> {
    return Promise.reject(new Error('the scripted weather model has no live (bidi) mode'))
  }
}

/** Served by `adk api_server` as app `scripted_weather_agent`. */
export const rootAgent = new LlmAgent({
  name: 'scripted_weather_agent',
  model: new ScriptedWeatherLlm(),
  description: 'Answers questions about the weather and the time in a city (scripted model).',
  instruction: INSTRUCTION,
  tools: [getWeather, getTime],
})

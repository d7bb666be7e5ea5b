/**
 * Inputs shared by the API suite: the recorded weather run and an eval case that matches it.
 */
import { readFileSync } from 'node:fs'

/** ADK for JavaScript (copied from the shared samples so a clone is self-contained), streaming: false; 5 frames: call, response, call, response, final text. */
export const WEATHER_SSE = readFileSync(new URL('../fixtures/shared/samples/adk-js-weather.sse', import.meta.url), 'utf8')
/** Same agent, streaming: true: partial text chunks and content-less model events in between. */
export const WEATHER_STREAMING_SSE = readFileSync(
  new URL('../fixtures/shared/samples/adk-js-weather-streaming.sse', import.meta.url),
  'utf8',
)

/** The frames' JSON, for the array and NDJSON spellings of the same run. */
export const WEATHER_EVENTS: Record<string, unknown>[] = WEATHER_SSE.split('\n\n')
  .filter((f) => f.startsWith('data: '))
  .map((f) => JSON.parse(f.slice('data: '.length)))

export const CONFIG = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 } }

export const FINAL_TEXT = 'In Paris it is sunny, 21C, and the time is 10:30.'

export function weatherCase(tools: Array<{ name: string; args: Record<string, unknown> }>, text = FINAL_TEXT) {
  return {
    eval_id: 'weather',
    conversation: [
      {
        invocation_id: 'expected-1',
        user_content: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
        final_response: { role: 'model', parts: [{ text }] },
        intermediate_data: { tool_uses: tools, intermediate_responses: [] },
      },
    ],
    session_input: { app_name: 'weather', user_id: 'u1', state: {} },
  }
}

/** The two calls the weather agent makes for Paris. */
export const WEATHER_TOOLS = [
  { name: 'get_weather', args: { city: 'Paris' } },
  { name: 'get_time', args: { city: 'Paris' } },
]

/** A one-turn case `id` whose user says `question`: what the run command's tests send to the stand-in agent. */
export function askingCase(id: string, question: string, tools = WEATHER_TOOLS) {
  return {
    eval_id: id,
    conversation: [
      {
        invocation_id: `x-${id}`,
        user_content: { role: 'user', parts: [{ text: question }] },
        final_response: { role: 'model', parts: [{ text: FINAL_TEXT }] },
        intermediate_data: { tool_uses: tools, intermediate_responses: [] },
      },
    ],
  }
}

export const MATCHING_CASE = weatherCase([
  { name: 'get_weather', args: { city: 'Paris' } },
  { name: 'get_time', args: { city: 'Paris' } },
])
/** Two expected invocations, each calling get_weather then get_time: for sessions that outlive a restart. */
export const TWO_TURN_CASE = {
  eval_id: 'two-turns',
  conversation: [1, 2].map((n) => ({
    invocation_id: `expected-${n}`,
    user_content: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
    final_response: { role: 'model', parts: [{ text: FINAL_TEXT }] },
    intermediate_data: { tool_uses: MATCHING_CASE.conversation[0]!.intermediate_data.tool_uses },
  })),
}
/** Expects only get_time: EXACT trajectory fails. */
export const DIVERGING_CASE = weatherCase([{ name: 'get_time', args: { city: 'Paris' } }])

/** ADK's four efficiency metrics, reported for every invocation after the configured ones. */
export const EFFICIENCY_METRICS = ['tool_call_count_v1', 'inference_call_count_v1', 'token_usage_v1', 'invocation_duration_v1']
/** What an exporter hears of one CONFIG session, sorted: each criterion, each efficiency metric, the case. */
export const EXPORTED_NAMES = ['evalstream.case', ...Object.keys(CONFIG.criteria), ...EFFICIENCY_METRICS].sort()
export const EFFICIENCY_RESULTS = Array<string>(4).fill('criterion.result')
/** What every session of the suite sees after the weather run and /end, in order. */
export const WEATHER_RESULT_TYPES = ['invocation.started', 'criterion.result', 'criterion.result', ...EFFICIENCY_RESULTS, 'case.result']

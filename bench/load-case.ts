/**
 * The load benches' session: an eval case expecting N weather invocations, the config they are
 * scored with, and each invocation's 4 events (tool call, tool response, partial text, final text)
 * as NDJSON. Shared so the load, worker-load and session-heap benches measure the same sessions.
 */

/** The criterion whose verdict latency the benches report (decided by the final answer). */
export const METRIC = 'tool_trajectory_avg_score'
export const CONFIG = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 } }
const CITIES = ['Paris', 'Tokyo', 'Lima', 'Oslo']

const city = (k: number) => CITIES[k % CITIES.length]!
const answer = (k: number) => `In ${city(k)} it is sunny and 21C.`

/** An eval case expecting `invocations` invocations, each one tool call and one answer. */
export function loadCase(invocations: number): object {
  return {
    eval_id: 'load',
    conversation: Array.from({ length: invocations }, (_, k) => ({
      invocation_id: `expected-${k}`,
      user_content: { role: 'user', parts: [{ text: `Weather in ${city(k)}?` }] },
      final_response: { role: 'model', parts: [{ text: answer(k) }] },
      intermediate_data: { tool_uses: [{ name: 'get_weather', args: { city: city(k) } }], intermediate_responses: [] },
    })),
  }
}

/** One invocation's 4 events as NDJSON; the last (the final answer) decides its verdicts. */
export function invocationBody(k: number): string {
  const base = { invocationId: `inv-${k}`, author: 'weather_agent' }
  const events = [
    { ...base, content: { role: 'model', parts: [{ functionCall: { id: `c${k}`, name: 'get_weather', args: { city: city(k) } } }] } },
    {
      ...base,
      content: { role: 'user', parts: [{ functionResponse: { id: `c${k}`, name: 'get_weather', response: { report: 'sunny, 21C' } } }] },
    },
    { ...base, partial: true, content: { role: 'model', parts: [{ text: `In ${city(k)}` }] } },
    { ...base, content: { role: 'model', parts: [{ text: answer(k) }] } },
  ]
  return events.map((e) => JSON.stringify(e)).join('\n') + '\n'
}

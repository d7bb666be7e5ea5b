/**
 * Eval sets for the end-to-end weather agent (test/e2e/agent), made up on the fly: cities cycle
 * through the agent's known ones, every fourth case has a second turn, and every fifth case
 * expects the wrong tools (so it fails), which gives the runner tests and the benchmark a mix of
 * verdicts and of scores to compare.
 */
import { CITIES } from '../e2e/agent/weather-data.ts'

const CITY_NAMES = Object.keys(CITIES)

function invocation(id: string, city: string, text: string, wrongTools: boolean) {
  const tools = wrongTools ? [{ name: 'get_time', args: { city } }] : [
    { name: 'get_weather', args: { city } },
    { name: 'get_time', args: { city } },
  ]
  return {
    invocation_id: id,
    user_content: { role: 'user', parts: [{ text }] },
    // Worded unlike the agent, so response_match_score is a real ROUGE score, not 1.
    final_response: {
      role: 'model',
      parts: [{
        text: `The weather in ${city} is ${CITIES[city]!.sky} at ${CITIES[city]!.tempC}C and the local time is ${CITIES[city]!.time}.`,
      }],
    },
    intermediate_data: { tool_uses: tools, intermediate_responses: [] },
  }
}

/**
 * @example weatherEvalSet(50).eval_cases.length // 50
 */
export function weatherEvalSet(count: number, id = 'weather_run') {
  return {
    eval_set_id: id,
    eval_cases: Array.from({ length: count }, (_, i) => {
      const city = CITY_NAMES[i % CITY_NAMES.length]!
      const wrong = i % 5 === 4
      const conversation = [invocation(`case-${i}-1`, city, `Weather and time in ${city}?`, wrong)]
      if (i % 4 === 3) {
        const next = CITY_NAMES[(i + 1) % CITY_NAMES.length]!
        conversation.push(invocation(`case-${i}-2`, next, `And in ${next}?`, false))
      }
      return {
        eval_id: `case_${String(i).padStart(2, '0')}_${city.toLowerCase()}`,
        conversation,
        session_input: { app_name: 'scripted_weather_agent', user_id: `user-${i % 3}`, state: { case: i } },
      }
    }),
  }
}

/** The config both use: ADK's two default criteria. */
export const WEATHER_CONFIG = {
  criteria: { tool_trajectory_avg_score: { threshold: 1.0, match_type: 'EXACT' }, response_match_score: 0.5 },
}

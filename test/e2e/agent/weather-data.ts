/**
 * The weather agent's world: a fixed table, so every run of the end-to-end agent produces the same
 * tool results and the same final text. Shared by the tools (inside `adk api_server`) and by the
 * scripted Gemini stub (inside the test process), which is why it imports nothing.
 *
 * Paris matches the recorded runs in shared/samples (sunny, 21C, 10:30).
 */

/** One city's deterministic conditions. */
export type CityFacts = { sky: string; tempC: number; time: string }

/** Cities the agent knows; anything else makes the tools return an error result. */
export const CITIES: Readonly<Record<string, CityFacts>> = {
  Paris: { sky: 'sunny', tempC: 21, time: '10:30' },
  Tokyo: { sky: 'cloudy', tempC: 17, time: '17:30' },
  London: { sky: 'rainy', tempC: 12, time: '09:30' },
}

/** What a tool returns: the `{status, report}` / `{status, error_message}` shape of ADK samples. */
export type ToolResult = { status: 'success'; report: string } | { status: 'error'; error_message: string }

/**
 * Result of `get_weather(city)`.
 * @example weatherReport('Paris') // { status: 'success', report: 'It is sunny and 21C in Paris.' }
 */
export function weatherReport(city: string): ToolResult {
  const facts = CITIES[city]
  if (!facts) return { status: 'error', error_message: `Weather for '${city}' is not available.` }
  return { status: 'success', report: `It is ${facts.sky} and ${facts.tempC}C in ${city}.` }
}

/**
 * Result of `get_time(city)`.
 * @example timeReport('Paris') // { status: 'success', report: 'The time in Paris is 10:30.' }
 */
export function timeReport(city: string): ToolResult {
  const facts = CITIES[city]
  if (!facts) return { status: 'error', error_message: `Time for '${city}' is not available.` }
  return { status: 'success', report: `The time in ${city} is ${facts.time}.` }
}

/**
 * The scripted model's final answer, as the chunks it streams (joined, they are the full text).
 * @example finalAnswerChunks('Paris').join('') // 'In Paris it is sunny, 21C, and the time is 10:30.'
 */
export function finalAnswerChunks(city: string): string[] {
  const facts = CITIES[city]
  if (!facts) return [`Sorry, I have no weather or time for ${city}.`]
  return [`In ${city} it is ${facts.sky}, `, `${facts.tempC}C, `, `and the time is ${facts.time}.`]
}

/**
 * The city a user message asks about: the first known city named in it, else the last capitalised
 * word (so an unknown city still reaches the tools and yields their error result), else null.
 * @example cityIn('Weather and time in Paris?') // 'Paris'
 */
export function cityIn(text: string): string | null {
  const known = Object.keys(CITIES).find((city) => new RegExp(`\\b${city}\\b`).test(text))
  if (known) return known
  const words = text.match(/\b[A-Z][a-z]+\b/g) ?? []
  const candidates = words.filter((w) => !['Weather', 'Time', 'And', 'What', 'How'].includes(w))
  return candidates.at(-1) ?? null
}

/**
 * Weather turns for engine tests, in the agent's camelCase as it sends them: the expected
 * invocation for a city (two tool calls, one answer) and the events that make an actual one.
 * Every model event reports its usage, so the efficiency criteria count what they were stepped with.
 */
import { decodeAll } from '../../src/ingest/index.ts'
import type { IngestedEvent } from '../../src/engine/types.ts'

/** The eval case's k-th invocation: the user asks for `city`'s weather, the agent calls get_weather and get_time and answers. */
export const expectedTurn = (k: number, city: string) => ({
  invocation_id: `expected-${k}`,
  user_content: { role: 'user', parts: [{ text: `Weather in ${city}?` }] },
  final_response: { role: 'model', parts: [{ text: `In ${city} it is sunny and 21C.` }] },
  intermediate_data: { tool_uses: [{ name: 'get_weather', args: { city } }, { name: 'get_time', args: { city } }] },
})

export const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }

export const ask = (inv: string, text: string) => ({ invocationId: inv, author: 'user', content: { role: 'user', parts: [{ text }] } })

export const call = (inv: string, name: string, city: string) => ({
  invocationId: inv,
  author: 'a',
  usageMetadata,
  content: { role: 'model', parts: [{ functionCall: { name, args: { city } } }] },
})

export const say = (inv: string, text: string) => ({
  invocationId: inv,
  author: 'a',
  usageMetadata,
  content: { role: 'model', parts: [{ text }] },
})

/** A streamed chunk: only these move response_match_score's early verdict. */
export const chunk = (inv: string, text: string) => ({ ...say(inv, text), partial: true })

/** The events as the ingest path decodes them (NDJSON, one per line). */
export function decodedEvents(list: object[]): IngestedEvent[] {
  return decodeAll('ndjson', list.map((e) => JSON.stringify(e)).join('\n') + '\n').events
}

/** The fixtures' conversation as the ADK events /run_sse streams for it (test/fixtures/otlp/scenario.ts). */
import { TURNS } from '../../../fixtures/otlp/scenario.ts'

/** The same conversation as ADK events (what /run_sse streams), one JSON per line. */
export function adkEventsNdjson(): string {
  const events = TURNS.flatMap((t, n) => {
    const invocation_id = `e-${n + 1}`
    const call = {
      invocation_id,
      author: 'weather_agent',
      content: { role: 'model', parts: t.calls.map((c) => ({ functionCall: { id: c.id, name: 'get_weather', args: { city: c.city } } })) },
      usageMetadata: { promptTokenCount: t.llm[0]!.prompt, candidatesTokenCount: t.llm[0]!.candidates },
    }
    const results = {
      invocation_id,
      author: 'weather_agent',
      content: { role: 'user', parts: t.calls.map((c) => ({ functionResponse: { id: c.id, name: 'get_weather', response: c.response } })) },
    }
    const final = {
      invocation_id,
      author: 'weather_agent',
      content: { role: 'model', parts: [{ text: t.final }] },
      usageMetadata: { promptTokenCount: t.llm[1]!.prompt, candidatesTokenCount: t.llm[1]!.candidates },
    }
    return [{ invocation_id, author: 'user', content: { role: 'user', parts: [{ text: t.user }] } }, call, results, final]
  })
  return events.map((e) => JSON.stringify(e)).join('\n') + '\n'
}

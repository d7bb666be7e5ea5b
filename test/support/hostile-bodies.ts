/**
 * Bodies that once crashed or poisoned the service (issue 7), shared by the in-process, Node socket
 * and Worker tests.
 */
import { WEATHER_EVENTS } from './weather-fixtures.ts'

/** `n` nested arrays as JSON text: V8 parses any depth, JSON.stringify overflows near 4,500. */
export const nestedArrays = (n: number) => '['.repeat(n) + ']'.repeat(n)

/** An object `{"a":{"a":…1}}` nested `n` levels, as JSON text. */
export const nestedObjects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)

/**
 * The crash body: a JSON array whose first event carries a long string (so the body is big enough
 * for the splitter to measure its elements) and whose second element is 10,000 nested arrays.
 * The third is a good event. Element 1 must be rejected, 0 and 2 kept.
 */
export function crashBody(): string {
  const long = JSON.stringify({ author: 'user', invocationId: 'e-long', content: { role: 'user', parts: [{ text: 'x'.repeat(350_000) }] } })
  return `[${long},${nestedArrays(10_000)},${JSON.stringify(WEATHER_EVENTS[0])}]`
}

/** One event whose functionCall.args is nested `levels` deep (100,000 poisoned a session before). */
export function deepArgsEvent(levels = 100_000): string {
  return `{"author":"agent","invocationId":"e-deep","content":{"role":"model","parts":[{"functionCall":{"name":"f","args":${
    nestedObjects(levels)
  }}}]}}`
}

/** A create body whose eval_case nests `levels` deep inside a tool call's args. */
export function deepCaseBody(sessionId: string, levels = 100_000): string {
  const conversation =
    `[{"invocation_id":"i","user_content":{"parts":[{"text":"q"}]},"intermediate_data":{"tool_uses":[{"name":"f","args":${
      nestedObjects(levels)
    }}]}}]`
  return `{"session_id":"${sessionId}","eval_case":{"eval_id":"deep","conversation":${conversation}}}`
}

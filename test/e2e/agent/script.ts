/**
 * The scripted weather model's brain, as a pure function of the conversation it is sent.
 *
 * Why stateless: ADK resends the whole session history on every model call, so the next step can be
 * read from the history itself. That keeps concurrent sessions, retries and multi-turn sessions
 * deterministic, where a call counter in the stub would not.
 *
 * Script per user turn: call get_weather{city}, then get_time{city}, then answer in text.
 */
import { cityIn, finalAnswerChunks } from './weather-data.ts'

/** The subset of a Gemini `Part` the script reads (REST JSON is camelCase). */
export type ScriptPart = {
  text?: string
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> }
  functionResponse?: { id?: string; name?: string; response?: unknown }
}
/** The subset of a Gemini `Content` the script reads. */
export type ScriptContent = { role?: string; parts?: ScriptPart[] }

/** What the model says next: one function call, or a text answer in streamable chunks. */
export type ModelTurn =
  | { kind: 'call'; name: 'get_weather' | 'get_time'; args: { city: string } }
  | { kind: 'text'; chunks: string[] }

/**
 * Decides the model's next turn from the request's `contents`.
 * @example
 * nextModelTurn([{ role: 'user', parts: [{ text: 'Weather and time in Paris?' }] }])
 * // { kind: 'call', name: 'get_weather', args: { city: 'Paris' } }
 */
export function nextModelTurn(contents: readonly ScriptContent[]): ModelTurn {
  // The current turn starts at the last user message that carries text (tool results are also
  // role "user", but they carry functionResponse parts only).
  let start = -1
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i]
    if (c?.role === 'user' && (c.parts ?? []).some((p) => typeof p.text === 'string' && p.text.trim() !== '')) {
      start = i
      break
    }
  }
  if (start < 0) return { kind: 'text', chunks: ['Ask me about the weather and time in a city.'] }
  const userText = (contents[start]?.parts ?? []).map((p) => p.text ?? '').join(' ')
  const answered = new Set<string>()
  for (const c of contents.slice(start + 1)) {
    for (const p of c.parts ?? []) if (p.functionResponse?.name) answered.add(p.functionResponse.name)
  }
  const city = cityIn(userText)
  if (city === null) return { kind: 'text', chunks: ['Which city do you mean?'] }
  if (!answered.has('get_weather')) return { kind: 'call', name: 'get_weather', args: { city } }
  if (!answered.has('get_time')) return { kind: 'call', name: 'get_time', args: { city } }
  return { kind: 'text', chunks: finalAnswerChunks(city) }
}

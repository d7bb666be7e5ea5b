/**
 * What both Gemini clients (the SDK's, ./gemini-client.ts, and the plain-fetch one,
 * ./gemini-fetch-client.ts) read from a generateContent answer: each candidate's text and the
 * token counts. Imports the SDK's types only, so a bundle with the fetch client carries no SDK code.
 */
import type { GenerateContentResponse } from '@google/genai'
import type { JudgeSample } from '../core/criterion.ts'

/** The text of each candidate (thought parts excluded), or why it has none. */
export function samplesOf(response: GenerateContentResponse): JudgeSample[] {
  const candidates = [...(response.candidates ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
  return candidates.map((c) => {
    const parts = (c.content?.parts ?? []).filter((p) => typeof p.text === 'string' && !p.thought)
    if (parts.length === 0) return { error: `judge returned no text (finishReason: ${c.finishReason ?? 'none'})` }
    return { text: parts.map((p) => p.text).join('') }
  })
}

/**
 * A reported token count, as the metrics and budgets add it up: a whole number from 0 to 2^53-1.
 * Anything else the model backend sends ("many", -5, 1e308, 1.5) counts as 0, so a sum can neither
 * turn into text nor go down.
 */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0
}

/** Node's fetch says only "fetch failed": the cause (ECONNREFUSED, ENOTFOUND...) and the judge's address are what a person needs. */
export function unreachableMessage(e: unknown, target: string): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause
  const why = cause?.code ?? cause?.message
  return why && target ? `cannot reach the judge at ${target} (${why})` : (e as Error).message
}

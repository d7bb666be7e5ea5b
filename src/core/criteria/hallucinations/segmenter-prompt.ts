/**
 * evalstream's own prompt for hallucinations_v1, round 1: cut the agent's text into checkable
 * sentences, verbatim. The JSON answer is a list of sentences; ADK's `<sentence>` tag format is
 * the text fallback (spec §2.6).
 */
import * as z from 'zod'
import { lazySchema } from '../../../adk/lazy-schema.ts'

const SYSTEM = `You split a text written by an AI agent into sentences so that each can be fact-checked on its own.
Rules:
- Copy the text verbatim; never rephrase, fix or drop words.
- Each sentence of prose is one item. Each bullet or numbered list item is its own item, and so is a list's lead-in line.
- Keep a table, a code block or a formula as one item.
- Skip items that are only markup or whitespace.
Reply with JSON only: {"sentences": ["...", "..."]}.`

/**
 * The request text for one piece of agent text.
 * @example hallucinationSegmenterPrompt('It is 5 pm. Bring an umbrella.').prompt
 */
export function hallucinationSegmenterPrompt(text: string): { systemInstruction: string; prompt: string } {
  return { systemInstruction: SYSTEM, prompt: `<text_to_split>\n${text}\n</text_to_split>` }
}

export const SEGMENTER_SCHEMA = {
  type: 'object',
  properties: { sentences: { type: 'array', items: { type: 'string' } } },
  required: ['sentences'],
} as const

export const SegmenterAnswer = lazySchema(() => z.looseObject({ sentences: z.array(z.string()) }))
export type SegmenterAnswer = z.infer<typeof SegmenterAnswer>

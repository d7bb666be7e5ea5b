/**
 * evalstream's own prompt for hallucinations_v1, round 2: label each sentence against what the
 * agent could know (instructions, user prompt, tool definitions, earlier messages and tool
 * results). ADK's labels (spec §2.6); the text block format is the fallback.
 */
import * as z from 'zod'
import { lazySchema } from '../../../adk/lazy-schema.ts'

export const HALLUCINATION_LABELS = ['supported', 'unsupported', 'contradictory', 'disputed', 'not_applicable'] as const

const SYSTEM = `You check, sentence by sentence, whether what an AI agent said is grounded in the material it had.
Labels:
- supported: the material states or directly implies it.
- unsupported: it makes a factual claim the material does not back up.
- contradictory: the material says otherwise.
- disputed: parts of the material support it and other parts contradict it.
- not_applicable: it makes no factual claim (greetings, questions, offers of help, opinions asked for).
Quote the material for supporting_excerpt and contradicting_excerpt, or use null.
Reply with JSON only: {"sentences": [{"sentence": ..., "label": ..., "rationale": ..., "supporting_excerpt": ... | null, "contradicting_excerpt": ... | null}]}, one entry per sentence in the given order.`

/**
 * The request text for one step's sentences.
 * @example hallucinationValidatorPrompt('User prompt:\nhi', ['Hello.']).prompt
 */
export function hallucinationValidatorPrompt(
  context: string,
  sentences: readonly string[],
): { systemInstruction: string; prompt: string } {
  const list = sentences.map((s, i) => `${i + 1}. ${s}`).join('\n')
  return {
    systemInstruction: SYSTEM,
    prompt: `<material>\n${context}\n</material>\n\n<sentences_to_check>\n${list}\n</sentences_to_check>`,
  }
}

const nullableString = { anyOf: [{ type: 'string' }, { type: 'null' }] }

export const VALIDATOR_SCHEMA = {
  type: 'object',
  properties: {
    sentences: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          sentence: { type: 'string' },
          label: { type: 'string', enum: [...HALLUCINATION_LABELS] },
          rationale: { type: 'string' },
          supporting_excerpt: nullableString,
          contradicting_excerpt: nullableString,
        },
        required: ['sentence', 'label', 'rationale'],
      },
    },
  },
  required: ['sentences'],
} as const

export const ValidatorAnswer = lazySchema(() =>
  z.looseObject({
    sentences: z.array(
      z.looseObject({
        sentence: z.string(),
        // A free string: unknown labels are ignored when scoring, as in ADK, not a parse failure.
        label: z.string(),
        rationale: z.string().optional(),
        supporting_excerpt: z.string().nullish(),
        contradicting_excerpt: z.string().nullish(),
      }),
    ),
  })
)
export type ValidatorAnswer = z.infer<typeof ValidatorAnswer>

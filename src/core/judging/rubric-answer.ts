/**
 * The answer format shared by both rubric prompts: one entry per property, in JSON. The rubric id is
 * echoed so answers match rubrics by id (text matching, ADK's only way, drops any property the judge
 * paraphrases: issue #5732); the ADK text format (Property/Rationale/Verdict lines) stays the fallback.
 */
import * as z from 'zod'
import { lazySchema } from '../../adk/lazy-schema.ts'

export const RUBRIC_ANSWER_SCHEMA = {
  type: 'object',
  properties: {
    properties: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          rubric_id: { type: 'string' },
          property: { type: 'string' },
          evidence: { type: 'string' },
          rationale: { type: 'string' },
          verdict: { type: 'string', enum: ['yes', 'no'] },
        },
        required: ['rubric_id', 'property', 'rationale', 'verdict'],
        propertyOrdering: ['rubric_id', 'property', 'evidence', 'rationale', 'verdict'],
      },
    },
  },
  required: ['properties'],
} as const

export const RubricAnswer = lazySchema(() =>
  z.looseObject({
    properties: z.array(
      z.looseObject({
        rubric_id: z.string().optional(),
        property: z.string().optional(),
        evidence: z.string().optional(),
        rationale: z.string().optional(),
        // Any string: read with ADK's substring rule, so "Yes" or "no." from a loose gateway still count.
        verdict: z.string(),
      }),
    ),
  })
)
export type RubricAnswer = z.infer<typeof RubricAnswer>

/** How the properties are listed in both prompts: id and text, one per line. */
export function propertyLines(rubrics: readonly { rubric_id: string; text: string }[]): string {
  return rubrics.map((r) => `- [${r.rubric_id}] ${r.text}`).join('\n')
}

export const ANSWER_INSTRUCTIONS = `For every property, in the order given, produce one entry with:
- rubric_id: the id shown in brackets before the property,
- property: the property text, copied exactly,
- evidence: what in the material supports your verdict,
- rationale: a short justification,
- verdict: "yes" if the property holds (or does not apply to this interaction), otherwise "no".
Reply with JSON only: {"properties": [{"rubric_id": ..., "property": ..., "evidence": ..., "rationale": ..., "verdict": ...}]}.`

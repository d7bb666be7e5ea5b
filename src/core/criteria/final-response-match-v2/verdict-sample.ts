/**
 * One final_response_match_v2 judge sample to a score. The label is read ONLY by ADK's label regex
 * (spec §2.3), whatever the answer looks like: a JSON answer that ADK's regex would not read (e.g.
 * whitespace before the colon) is NOT_FOUND here as in ADK. The JSON, when the answer is JSON, is
 * used for the judge's reasoning only, which ADK does not extract at all.
 */
import * as z from 'zod'
import { lazySchema } from '../../../adk/lazy-schema.ts'
import type { JudgeSample } from '../../criterion.ts'
import { parseJsonAnswer } from '../../judging/answers.ts'
import { parseVerdictLabel, type VerdictLabel, verdictLabelScore } from './verdict-label.ts'

export type VerdictSample = {
  score: number | null
  label: VerdictLabel | null
  reasoning?: string
  /** How the label was read: always ADK's text regex (kept in the details for continuity). */
  parsed_with?: 'adk-text'
  error?: string
}

/** Only the reasoning is taken from a JSON answer; its label field is not trusted over ADK's regex. */
const Reasoning = lazySchema(() => z.looseObject({ reasoning: z.string() }))

/**
 * @example readVerdictText('{"reasoning": "same", "is_the_agent_response_valid": "valid"}') // { score: 1, label: 'VALID', reasoning: 'same', ... }
 * @example readVerdictText('{"is_the_agent_response_valid" : "valid"}').label // 'NOT_FOUND', as in ADK
 */
export function readVerdictText(text: string): VerdictSample {
  const label = parseVerdictLabel(text)
  const sample: VerdictSample = { score: verdictLabelScore(label), label, parsed_with: 'adk-text' }
  const reasoning = parseJsonAnswer(text, Reasoning)?.reasoning
  if (reasoning !== undefined) sample.reasoning = reasoning
  return sample
}

/** A sample of any kind; errors and service scores give no label (ADK: None). */
export function readVerdictSample(sample: JudgeSample): VerdictSample {
  if ('text' in sample) return readVerdictText(sample.text)
  if ('error' in sample) return { score: null, label: null, error: sample.error }
  return { score: null, label: null, error: 'unexpected service score for a text judge' }
}

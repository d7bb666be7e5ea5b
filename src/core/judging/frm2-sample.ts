/**
 * One final_response_match_v2 judge sample to a score: the JSON answer when it is valid for the
 * response schema, otherwise ADK's label regex on the raw text (spec §2.3).
 */
import type { JudgeSample } from '../criterion.ts'
import { FinalResponseMatchAnswer } from '../prompts/final-response-match.ts'
import { parseJsonAnswer } from './answers.ts'
import { frm2LabelScore, parseFrm2Label, type Frm2Label } from './frm2-label.ts'

export type Frm2Sample = {
  score: number | null
  label: Frm2Label | null
  reasoning?: string
  parsed_with?: 'json' | 'adk-text'
  error?: string
}

/**
 * @example readFrm2Text('{"reasoning": "same", "is_the_agent_response_valid": "valid"}').score // 1
 */
export function readFrm2Text(text: string): Frm2Sample {
  const json = parseJsonAnswer(text, FinalResponseMatchAnswer)
  if (json) {
    const label: Frm2Label = json.is_the_agent_response_valid === 'valid' ? 'VALID' : 'INVALID'
    const sample: Frm2Sample = { score: frm2LabelScore(label), label, parsed_with: 'json' }
    if (json.reasoning !== undefined) sample.reasoning = json.reasoning
    return sample
  }
  const label = parseFrm2Label(text)
  return { score: frm2LabelScore(label), label, parsed_with: 'adk-text' }
}

/** A sample of any kind; errors and service scores give no label (ADK: None). */
export function readFrm2Sample(sample: JudgeSample): Frm2Sample {
  if ('text' in sample) return readFrm2Text(sample.text)
  if ('error' in sample) return { score: null, label: null, error: sample.error }
  return { score: null, label: null, error: 'unexpected service score for a text judge' }
}

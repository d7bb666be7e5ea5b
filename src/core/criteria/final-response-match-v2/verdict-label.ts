/**
 * final_response_match_v2's ADK text parser (spec §2.3), quirks included, because parity on the
 * judge's free text is the point: the label regex is case-sensitive, and the captured label is
 * stripped of the characters `\`, `s`, `,` and `}` (a raw-string slip in ADK that also strips the
 * letter "s": `"valids"` reads as `valid`).
 */
import { stripChars } from '../../judging/strip-chars.ts'

export type VerdictLabel = 'VALID' | 'INVALID' | 'NOT_FOUND'

// ADK's value pattern after the key: optional brackets, quotes and whitespace around one token.
const VALUE = String.raw`\s*\[*[\n\s]*"*([^"^\]^\s]*)"*[\n\s]*\]*\s*[,\n\}]`
const VALID_KEY = new RegExp(String.raw`"is_the_agent_response_valid":` + VALUE)
const INVALID_KEY = new RegExp(String.raw`"is_the_agent_response_invalid":` + VALUE)

const STRIPPED = new Set(['\\', 's', ',', '}'])
const INVALID_WORDS = new Set(['invalid', 'almost', 'false', 'partially_valid', 'partially'])
const VALID_WORDS = new Set(['valid', 'true'])

/**
 * The label ADK reads from a judge text.
 * @example parseVerdictLabel('{"is_the_agent_response_valid": "valid"}') // 'VALID'
 */
export function parseVerdictLabel(text: string): VerdictLabel {
  const valid = VALID_KEY.exec(text)
  if (valid) {
    const label = stripChars(valid[1] ?? '', STRIPPED)
    if (INVALID_WORDS.has(label)) return 'INVALID'
    if (VALID_WORDS.has(label)) return 'VALID'
    return 'NOT_FOUND'
  }
  const invalid = INVALID_KEY.exec(text)
  if (invalid) {
    const label = stripChars(invalid[1] ?? '', STRIPPED)
    // ADK's fallback: only "true"/"invalid" mean invalid; ANY other label counts as valid.
    return label === 'true' || label === 'invalid' ? 'INVALID' : 'VALID'
  }
  return 'NOT_FOUND'
}

/**
 * VALID -> 1, INVALID -> 0, NOT_FOUND -> null (that sample is NOT_EVALUATED).
 * @example verdictLabelScore('INVALID') // 0
 */
export function verdictLabelScore(label: VerdictLabel): number | null {
  return label === 'VALID' ? 1 : label === 'INVALID' ? 0 : null
}

/**
 * per_turn_user_simulator_quality_v1's ADK text parser: the `"is_valid":` value, read with the
 * same regex as final_response_match_v2's labels, stripped of `\`, `s`, `,` and `}` (ADK's
 * raw-string slip, as in ../final-response-match-v2/verdict-label.ts), THEN lowercased (so `True`
 * and `"FALSE"` read). Unknown words and a missing key are NOT_FOUND: that sample has no score.
 */
import { stripChars } from '../../judging/strip-chars.ts'

const IS_VALID = new RegExp(String.raw`"is_valid":\s*\[*[\n\s]*"*([^"^\]^\s]*)"*[\n\s]*\]*\s*[,\n\}]`)
const STRIPPED = new Set(['\\', 's', ',', '}'])
const INVALID_WORDS = new Set(['invalid', 'almost', 'false', 'partially_valid', 'partially'])
const VALID_WORDS = new Set(['valid', 'true'])

/**
 * 1 for a valid label, 0 for an invalid one, null when none could be read.
 * @example isValidScore('{"criteria": [], "is_valid": True}') // 1
 */
export function isValidScore(text: string): number | null {
  const match = IS_VALID.exec(text)
  if (!match) return null
  const label = stripChars(match[1] ?? '', STRIPPED).toLowerCase()
  if (INVALID_WORDS.has(label)) return 0
  if (VALID_WORDS.has(label)) return 1
  return null
}

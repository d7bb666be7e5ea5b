/**
 * Python's `str.strip(chars)`, which ADK's label parsers apply to the captured label (both
 * final_response_match_v2's verdict label and per_turn_user_simulator_quality_v1's `"is_valid"`).
 */

/**
 * `text` without the leading and trailing characters in `chars`.
 * @example stripChars('"valid",', new Set(['"', ','])) // 'valid'
 */
export function stripChars(text: string, chars: ReadonlySet<string>): string {
  let start = 0
  let end = text.length
  while (start < end && chars.has(text[start] as string)) start++
  while (end > start && chars.has(text[end - 1] as string)) end--
  return text.slice(start, end)
}

/**
 * ADK v2.0's rubric answer parser (spec §2.4): three independent line searches for `Property: `,
 * `Rationale: ` and `Verdict: `, zipped by position (the shortest list wins, so a missing line
 * shifts later rationales: a known ADK flaw we keep for parity), then verdict words to scores and
 * property texts to rubric ids.
 */
import type { Rubric } from '../../adk/invocation.ts'

export type ParsedProperty = { property_text: string; rationale: string; score?: number }
export type RubricScore = { rubric_id: string; rationale?: string; score?: number | null }

// `[^\n]*` rather than `.*`: Python's `.` stops only at \n, JS's also at \r, \u2028 and \u2029.
const PROPERTY = /(?<=Property: )([^\n]*)/g
const RATIONALE = /(?<=Rationale: )([^\n]*)/g
const VERDICT = /(?<=Verdict: )([^\n]*)/g

function findAll(pattern: RegExp, text: string): string[] {
  return Array.from(text.matchAll(pattern), (m) => m[1] ?? '')
}

/**
 * Substring tests, as ADK: "yes" anywhere -> 1, else "no" anywhere -> 0 ("not applicable" -> 0).
 * @example verdictScore('No, but yes in part') // 1
 */
export function verdictScore(verdict: string): number | undefined {
  const lower = verdict.toLowerCase()
  if (lower.includes('yes')) return 1
  if (lower.includes('no')) return 0
  return undefined
}

/**
 * Property/Rationale/Verdict triples from a judge text.
 * @example parseRubricText('Property: p\nRationale: r\nVerdict: yes') // [{ property_text: 'p', rationale: 'r', score: 1 }]
 */
export function parseRubricText(text: string): ParsedProperty[] {
  const properties = findAll(PROPERTY, text)
  const rationales = findAll(RATIONALE, text)
  const verdicts = findAll(VERDICT, text)
  const count = Math.min(properties.length, rationales.length, verdicts.length)
  const parsed: ParsedProperty[] = []
  for (let i = 0; i < count; i++) {
    const entry: ParsedProperty = { property_text: properties[i] as string, rationale: rationales[i] as string }
    const score = verdictScore(verdicts[i] as string)
    if (score !== undefined) entry.score = score
    parsed.push(entry)
  }
  return parsed
}

/** Python's `str.strip()` + `lower()`, the only normalisation ADK v2.0 applies to property texts. */
export function normaliseProperty(text: string): string {
  return text.toLowerCase().trim()
}

/**
 * Parsed properties to rubric scores: matched by normalised text, unmatched ones dropped.
 * @example propertiesToRubricScores([{ property_text: 'P', rationale: 'r', score: 1 }], [{ rubric_id: '1', rubric_content: { text_property: 'p' } }])
 * // [{ rubric_id: '1', rationale: 'r', score: 1 }]
 */
export function propertiesToRubricScores(parsed: readonly ParsedProperty[], rubrics: readonly Rubric[]): RubricScore[] {
  const byText = new Map<string, string>()
  for (const rubric of rubrics) {
    const key = normaliseProperty(rubric.rubric_content.text_property ?? '')
    if (!byText.has(key)) byText.set(key, rubric.rubric_id)
  }
  const scores: RubricScore[] = []
  for (const entry of parsed) {
    const rubricId = byText.get(normaliseProperty(entry.property_text))
    if (rubricId === undefined) continue
    const score: RubricScore = { rubric_id: rubricId, rationale: entry.rationale }
    if (entry.score !== undefined) score.score = entry.score
    scores.push(score)
  }
  return scores
}

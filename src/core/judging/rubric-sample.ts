/**
 * One rubric judge sample to rubric scores: the JSON answer (matched to rubrics by the echoed id,
 * else by property text) when it is valid for the schema; otherwise ADK's Property/Rationale/Verdict
 * text parser with ADK's text matching (spec §2.4).
 */
import type { Rubric } from '../../adk/invocation.ts'
import type { JudgeSample } from '../criterion.ts'
import { RubricAnswer } from './rubric-answer.ts'
import { parseJsonAnswer } from './answers.ts'
import { normaliseProperty, parseRubricText, propertiesToRubricScores, type RubricScore, verdictScore } from './rubric-text.ts'

export type RubricSample = { rubric_scores: RubricScore[]; parsed_with?: 'json' | 'adk-text'; error?: string }

/**
 * @example readRubricText('{"properties":[{"rubric_id":"r1","rationale":"ok","verdict":"yes"}]}', rubrics).rubric_scores
 * // [{ rubric_id: 'r1', rationale: 'ok', score: 1 }]
 */
export function readRubricText(text: string, rubrics: readonly Rubric[]): RubricSample {
  const json = parseJsonAnswer(text, RubricAnswer)
  if (!json) return { rubric_scores: propertiesToRubricScores(parseRubricText(text), rubrics), parsed_with: 'adk-text' }
  const ids = new Set(rubrics.map((r) => r.rubric_id))
  const scores: RubricScore[] = []
  for (const entry of json.properties) {
    let rubricId = entry.rubric_id !== undefined && ids.has(entry.rubric_id) ? entry.rubric_id : undefined
    if (rubricId === undefined && entry.property !== undefined) {
      const wanted = normaliseProperty(entry.property)
      rubricId = rubrics.find((r) => normaliseProperty(r.rubric_content.text_property ?? '') === wanted)?.rubric_id
    }
    if (rubricId === undefined) continue
    const score: RubricScore = { rubric_id: rubricId, rationale: entry.rationale ?? '' }
    const value = verdictScore(entry.verdict)
    if (value !== undefined) score.score = value
    scores.push(score)
  }
  return { rubric_scores: scores, parsed_with: 'json' }
}

/** A sample of any kind; a failed sample scores no rubric (ADK: None). */
export function readRubricSample(sample: JudgeSample, rubrics: readonly Rubric[]): RubricSample {
  if ('text' in sample) return readRubricText(sample.text, rubrics)
  if ('error' in sample) return { rubric_scores: [], error: sample.error }
  return { rubric_scores: [], error: 'unexpected service score for a text judge' }
}

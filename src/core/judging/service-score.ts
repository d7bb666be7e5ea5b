/**
 * Reading the answer to a request a judge service may score itself (Vertex's evaluation metrics):
 * a `{ score, rubric_scores }` sample is the service's own verdict, mapped as ADK maps it (a finite
 * score or none; its rubric verdicts, explanation and error as rubric scores). A text sample is
 * evalstream's own judge answering the request's prompt (`{"explanation", "score"}`): labelled
 * `judge: "evalstream"` so it is never mistaken for the service's score.
 */
import * as z from 'zod'
import { lazySchema } from '../../adk/lazy-schema.ts'
import type { JudgeAnswer, JudgeSample, Outcome } from '../criterion.ts'
import { parseJsonAnswer, samplesFor, viaFor } from './answers.ts'
import { scoreOutcome } from './request.ts'

const ScoreAnswer = lazySchema(() => z.looseObject({ explanation: z.string().optional(), score: z.number() }))

/**
 * @example serviceScoreOutcome([{ id: 'r', via: 'vertex-eval', samples: [{ score: 0.8 }] }], 'r', { min: 0, max: 1 })
 */
export function serviceScoreOutcome(answers: JudgeAnswer[], id: string, range: { min: number; max: number }): Outcome {
  const sample = samplesFor(answers, id)[0] as JudgeSample | undefined
  const via = viaFor(answers, id) ?? 'the judge service'
  if (!sample) return scoreOutcome(null, 'the judge returned no answer')
  if ('error' in sample) return scoreOutcome(null, sample.error, { judged_by: via })
  if ('score' in sample) {
    const score = typeof sample.score === 'number' && Number.isFinite(sample.score) ? sample.score : null
    const rubricScores = sample.rubric_scores ? { rubric_scores: sample.rubric_scores } : {}
    return scoreOutcome(score, `${via} gave no score`, { judged_by: via, ...rubricScores })
  }
  const details: Record<string, unknown> = { judge: 'evalstream', judged_by: via }
  const json = parseJsonAnswer(sample.text, ScoreAnswer)
  if (!json) return scoreOutcome(null, 'could not read {"explanation", "score"} from the evalstream judge', details)
  if (json.explanation !== undefined) details.rubric_scores = [{ rubric_id: 'explanation', rationale: json.explanation }]
  if (!(json.score >= range.min && json.score <= range.max)) {
    return scoreOutcome(null, `the evalstream judge's score ${json.score} is outside ${range.min}-${range.max}`, details)
  }
  return scoreOutcome(json.score, undefined, details)
}

import { describe, expect, it } from 'vitest'
import {
  evaluatedOnlyMeanAggregate,
  exactMean,
  exactMeanAggregate,
  floatMean,
  meanAggregate,
  perInvocationResults,
  rubricFlattenedAggregate,
  type RubricScore,
} from '../../../src/core/aggregate.ts'
import type { InvocationScore } from '../../../src/core/criterion.ts'
import { caseStatus, type EvalStatus, statusFor } from '../../../src/adk/status.ts'
import { readShared } from '../../support/shared-data.ts'

function vectorFile(name: string): string {
  return readShared('vectors', name)
}
// Vectors of several shapes, told apart by their keys (tests may use `any`: deno.json, npm run lint).
type Vector = Record<string, any> & { id: string }
const VECTORS = (JSON.parse(vectorFile('aggregation.json')) as { vectors: Vector[] }).vectors

/** Floats as ADK computed them: exact, or within 1e-12 (vectors README). */
function close(actual: number | null, expected: number | null) {
  if (expected === null) expect(actual).toBeNull()
  else expect(Math.abs((actual ?? Number.NaN) - expected)).toBeLessThanOrEqual(1e-12)
}

const byKind = (test: (v: Vector) => boolean) => VECTORS.filter(test)
const KINDS = {
  frm2: byKind((v) => v.metric === 'final_response_match_v2'),
  halluc: byKind((v) => v.metric === 'hallucinations_v1'),
  threshold: byKind((v) => 'expected_eval_status' in v),
  finalStatus: byKind((v) => 'metric_statuses' in v),
  rubric: byKind((v) => 'per_invocation_rubric_scores' in v),
  rubricMean: byKind((v) => 'rubric_scores' in v),
  steps: byKind((v) => 'step_scores' in v),
}

describe('aggregation.json', () => {
  it('every vector is exercised by one of the tables below', () => {
    const covered = Object.values(KINDS).flat()
    expect(new Set(covered.map((v) => v.id)).size).toBe(covered.length)
    expect(covered.length).toBe(VECTORS.length)
  })

  it.each(KINDS.frm2)('$id: final_response_match_v2 counts only evaluated invocations', (v) => {
    const scores: InvocationScore[] = v.per_invocation.map((p: { score: number | null; eval_status: EvalStatus }) => ({
      score: p.score,
      status: p.eval_status,
    }))
    const overall = evaluatedOnlyMeanAggregate(scores, { threshold: v.threshold })
    close(overall.score, v.expected.overall_score)
    expect(overall.status).toBe(v.expected.overall_eval_status)
    // The plain mean would have counted the 100.0 of a NOT_EVALUATED invocation.
    expect(meanAggregate(scores, { threshold: v.threshold }).score).not.toBe(v.expected.overall_score)
  })

  it.each(KINDS.halluc)('$id: hallucinations_v1 per-invocation status and overall mean', (v) => {
    const scores: InvocationScore[] = v.expected.per_invocation.map((p: { score: number | null }) => ({ score: p.score }))
    const overall = exactMeanAggregate(scores, { threshold: v.threshold })
    close(overall.score, v.expected.overall_score)
    expect(overall.status).toBe(v.expected.overall_eval_status)
    const reported = perInvocationResults(scores, overall, v.threshold)
    expect(reported.map((r) => r.status)).toEqual(v.expected.per_invocation.map((p: { eval_status: string }) => p.eval_status))
    expect(reported.map((r) => r.score)).toEqual(v.expected.per_invocation.map((p: { score: number | null }) => p.score))
    if (overall.score === null) expect(overall.reason).toBeTruthy()
  })

  it.each(KINDS.threshold)('$id: threshold is score >= threshold, None is NOT_EVALUATED', (v) => {
    expect(statusFor(v.score, v.threshold)).toBe(v.expected_eval_status)
  })

  it.each(KINDS.finalStatus)('$id: case status', (v) => {
    expect(caseStatus(v.metric_statuses)).toBe(v.expected_final_eval_status)
  })

  it.each(KINDS.rubric)('$id: rubric overall is the flattened mean', (v) => {
    const scores: InvocationScore[] = v.per_invocation_rubric_scores.map((rubricScores: RubricScore[]) => ({
      score: exactMean(rubricScores.flatMap((r) => (typeof r.score === 'number' ? [r.score] : []))),
      details: { rubric_scores: rubricScores },
    }))
    const overall = rubricFlattenedAggregate(scores, { threshold: v.threshold })
    close(overall.score, v.expected.overall_score)
    expect(overall.status).toBe(v.expected.overall_eval_status)
    const perRubric = overall.details?.overall_rubric_scores as RubricScore[]
    expect(perRubric.map((r) => r.rubric_id)).toEqual(v.expected.overall_rubric_scores.map((r: RubricScore) => r.rubric_id))
    perRubric.forEach((r, i) => close(r.score ?? null, v.expected.overall_rubric_scores[i].score))
  })

  it.each(KINDS.rubricMean)('$id: an invocation rubric score is the mean of the non-None verdicts', (v) => {
    close(exactMean(v.rubric_scores.filter((s: number | null) => s !== null)), v.expected_mean)
  })

  // agg-halluc-steps-001 records 0.8333333333333334 where CPython's statistics.mean([2/3, 1.0])
  // gives 0.8333333333333333 (as agg-halluc-003 records): one ulp, inside the README's 1e-12.
  it.each(KINDS.steps)('$id: an invocation score is the mean of the non-None step scores', (v) => {
    close(exactMean(v.step_scores.filter((s: number | null) => s !== null)), v.expected_invocation_score)
  })
})

describe('means', () => {
  // [values, Python statistics.mean(values), Python loop `total += v; total / n`], from CPython 3.11.
  const TABLE: Array<[number[], number, number]> = [
    [[0.1, 0.2, 0.3], 0.2, 0.20000000000000004],
    [[0.8, 0.6], 0.7, 0.7],
    [Array(10).fill(0.1), 0.1, 0.09999999999999999],
    [[1e16, 1.0, -1e16], 0.3333333333333333, 0.0],
    [[0.7, 0.1, 0.1, 0.1], 0.25, 0.24999999999999997],
    [[2 / 3, 1.0], 0.8333333333333333, 0.8333333333333333],
    [[1.0, 0.0, 1.0], 0.6666666666666666, 0.6666666666666666],
    [[1e308, 1e308], 1e308, Number.POSITIVE_INFINITY],
    [[-0.5, 0.25, 1e-20], -0.08333333333333333, -0.08333333333333333],
    [[0.0, -0.0], 0.0, 0.0],
  ]
  it.each(TABLE)('%j', (values, statisticsMean, loopMean) => {
    expect(exactMean(values)).toBe(statisticsMean)
    expect(floatMean(values)).toBe(loopMean)
  })
  it('has no mean of nothing', () => {
    expect(exactMean([])).toBeNull()
    expect(floatMean([])).toBeNull()
  })
})

describe('aggregates', () => {
  const t = { threshold: 0.5 }
  it('mean of non-null scores; nothing scored is NOT_EVALUATED with a reason, never NaN or 0', () => {
    expect(meanAggregate([{ score: 1 }, { score: null, reason: 'x' }, { score: 0 }], t)).toEqual({ score: 0.5, status: 'PASSED' })
    for (const scores of [[], [{ score: null, reason: 'x' }]]) {
      const overall = meanAggregate(scores, t)
      expect(overall.score).toBeNull()
      expect(overall.status).toBe('NOT_EVALUATED')
      expect(overall.reason).toBeTruthy()
    }
  })
  it('final_response_match_v2 with no evaluated invocation is NOT_EVALUATED (ADK 2.0 divides by zero)', () => {
    const overall = evaluatedOnlyMeanAggregate([{ score: null, status: 'NOT_EVALUATED', reason: 'unparsed' }], t)
    expect(overall).toMatchObject({ score: null, status: 'NOT_EVALUATED' })
  })
  it('rubric flattened mean differs from the mean of invocation means', () => {
    const scores: InvocationScore[] = [
      { score: 1, details: { rubric_scores: [{ rubric_id: 'a', score: 1 }] } },
      {
        score: 0,
        details: { rubric_scores: [{ rubric_id: 'a', score: 0 }, { rubric_id: 'b', score: 0 }, { rubric_id: 'c', score: null }] },
      },
    ]
    const overall = rubricFlattenedAggregate(scores, t)
    expect(overall.score).toBe(1 / 3)
    expect(overall.status).toBe('FAILED')
    expect(meanAggregate(scores, t).score).toBe(0.5)
    expect((overall.details?.overall_rubric_scores as RubricScore[]).map((r) => [r.rubric_id, r.score])).toEqual([
      ['a', 0.5],
      ['b', 0],
      ['c', null],
    ])
  })
  it('blanks per-invocation results of a NOT_EVALUATED metric and resolves statuses otherwise', () => {
    const scores: InvocationScore[] = [{ score: 0.4 }, { score: 0.9, status: 'FAILED' }]
    expect(perInvocationResults(scores, { score: 0.65, status: 'PASSED' }, 0.5).map((r) => r.status)).toEqual(['FAILED', 'FAILED'])
    expect(perInvocationResults(scores, { score: null, status: 'NOT_EVALUATED', reason: 'judge down' }, 0.5)).toEqual([
      { score: null, status: 'NOT_EVALUATED', reason: 'judge down' },
      { score: null, status: 'NOT_EVALUATED', reason: 'judge down' },
    ])
  })
})

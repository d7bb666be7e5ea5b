import { describe, expect, it } from 'vitest'
import { exactMean } from '../../../../src/core/aggregate.ts'
import type { RubricScore } from '../../../../src/core/judging/rubric-text.ts'
import { rubricDecided, rubricVote, sideDecided, verdictDecided, verdictVoteIndex } from '../../../../src/core/judging/vote.ts'
import { statusFor } from '../../../../src/adk/status.ts'
import { loadVectors } from './load-vectors.ts'

type Frm2Vector = {
  id: string
  metric: string
  samples: Array<{ score: number | null; eval_status: string }>
  expected: { score: number | null; eval_status: string; chosen_sample_index: number }
}
type RubricVector = {
  id: string
  metric: string
  threshold: number
  samples: RubricScore[][]
  expected: { rubric_scores: RubricScore[]; score: number | null; eval_status: string }
}
const V = loadVectors<{ vectors: Array<Frm2Vector | RubricVector> }>('majority_vote.json').vectors
const FRM2 = V.filter((v): v is Frm2Vector => v.metric === 'final_response_match_v2')
const RUBRIC = V.filter((v): v is RubricVector => v.metric.startsWith('rubric'))

describe('majority vote vectors', () => {
  it('covers both metrics', () => {
    expect(FRM2.length).toBeGreaterThan(0)
    expect(RUBRIC.length).toBeGreaterThan(0)
  })
  it.each(FRM2.map((v) => [v.id, v] as const))('%s', (_, v) => {
    const index = verdictVoteIndex(v.samples.map((s) => s.score))
    expect(index).toBe(v.expected.chosen_sample_index)
    const chosen = v.samples[index]
    expect(chosen?.score ?? null).toBe(v.expected.score)
    expect(chosen?.eval_status).toBe(v.expected.eval_status)
  })
  it.each(RUBRIC.map((v) => [v.id, v] as const))('%s', (_, v) => {
    const chosen = rubricVote(v.samples)
    expect(chosen).toEqual(v.expected.rubric_scores)
    const score = exactMean(chosen.flatMap((c) => (typeof c.score === 'number' ? [c.score] : [])))
    expect(score).toBe(v.expected.score)
    expect(statusFor(score, v.threshold)).toBe(v.expected.eval_status)
  })
  it('frm2: a tie goes to the first negative, never to an earlier positive', () => {
    expect(verdictVoteIndex([null, 1, 0, 1, 0])).toBe(2)
  })
})

/** Every sequence of `length` items drawn from `alphabet`. */
function* sequences<T>(alphabet: readonly T[], length: number): Generator<T[]> {
  if (length === 0) {
    yield []
    return
  }
  for (const head of sequences(alphabet, length - 1)) for (const a of alphabet) yield [...head, a]
}

describe('early stop (decided) never changes the vote', () => {
  it('sideDecided', () => {
    expect(sideDecided(3, 0, 2)).toBe(true)
    expect(sideDecided(2, 0, 2)).toBe(false)
    expect(sideDecided(0, 2, 2)).toBe(true) // 2 more positives would only tie: ties go negative
    expect(sideDecided(0, 0, 1)).toBe(false)
    expect(sideDecided(0, 0, 0)).toBe(true)
  })

  it('frm2: exhaustively over 5 samples of {1, 0, null}', () => {
    const total = 5
    let stops = 0
    for (const full of sequences([1, 0, null], total)) {
      for (let k = 1; k < total; k++) {
        const prefix = full.slice(0, k)
        if (!verdictDecided(prefix, total)) continue
        stops++
        const early = verdictVoteIndex(prefix)
        expect(early).toBe(verdictVoteIndex(full))
      }
    }
    expect(stops).toBeGreaterThan(0) // early stop does happen
  })

  it('rubric: exhaustively over 4 samples, two rubrics, each scored 1, 0, None or absent', () => {
    const total = 4
    const states = [1, 0, null, 'absent'] as const
    const perSample: RubricScore[][] = []
    for (const a of states) {
      for (const b of states) {
        const sample: RubricScore[] = []
        if (a !== 'absent') sample.push({ rubric_id: 'a', rationale: `a${a}`, score: a })
        if (b !== 'absent') sample.push({ rubric_id: 'b', rationale: `b${b}`, score: b })
        perSample.push(sample)
      }
    }
    let stops = 0
    for (const full of sequences(perSample, total)) {
      for (let k = 1; k < total; k++) {
        const prefix = full.slice(0, k)
        if (!rubricDecided(prefix, ['a', 'b'], total)) continue
        stops++
        expect(rubricVote(prefix)).toEqual(rubricVote(full))
      }
    }
    expect(stops).toBeGreaterThan(0)
  })
})

describe('rubric early stop with a property listed twice', () => {
  it('does not stop early', () => {
    const twice: RubricScore[] = [{ rubric_id: 'a', score: 1 }, { rubric_id: 'a', score: 1 }]
    expect(rubricDecided([twice, twice, twice], ['a'], 5)).toBe(false)
    expect(rubricDecided([[{ rubric_id: 'a', score: 1 }], [{ rubric_id: 'a', score: 1 }], [{ rubric_id: 'a', score: 1 }]], ['a'], 5)).toBe(
      true,
    )
  })
})

/**
 * What the dashboard shows of a judge: the rationale, each sample's vote with its own reasoning
 * (final_response_match_v2's real details, from its resume), rubric verdicts, deeper rationales
 * (hallucinations' per-sentence ones), bounded.
 */
import { describe, expect, it } from 'vitest'
import { finalResponseMatchV2 as C } from '../../../../src/core/criteria/final-response-match-v2/criterion.ts'
import { judgeView, MAX_VOTES } from '../../../../src/http/dashboard/browser/judge-view.ts'
import { answerAll, judgeOutcome, scoreResult, texts, turn } from '../../core/criteria/judged-helpers.ts'

const verdict = (label: string, reasoning: string) => JSON.stringify({ reasoning, is_the_agent_response_valid: label })

describe('judgeView', () => {
  it("shows final_response_match_v2's rationale and every sample's vote with its reasoning", () => {
    const config = C.config.parse({ threshold: 0.5, judge_model_options: { num_samples: 3 } })
    const outcome = judgeOutcome(C.finish(C.init({ config, expected: turn('q', 'It is 4.'), key: 'k' }), turn('q', 'Four.')))
    const samples = texts(verdict('invalid', 'wrong number'), verdict('valid', 'same number'), verdict('valid', 'four is 4'))
    const result = scoreResult(outcome.resume(answerAll(outcome.requests, samples)))
    expect(judgeView(result.details)).toEqual({
      rationale: 'same number',
      votes: [
        { label: 'invalid', reasoning: 'wrong number' },
        { label: 'valid', reasoning: 'same number', chosen: true },
        { label: 'valid', reasoning: 'four is 4' },
      ],
      rubrics: [],
      notes: [],
    })
  })

  it('reads yes/no sample scores as votes and rubric verdicts with their rationales', () => {
    const view = judgeView({
      sample_scores: [1, 0, null],
      rubric_scores: [{ rubric_id: 'r1', score: 1, rationale: 'done' }, { rubric_id: 'r2', score: 0 }, { rubric_id: 'r3', score: null }],
    })!
    expect(view.votes.map((v) => v.label)).toEqual(['valid', 'invalid', 'no label'])
    expect(view.rubrics).toEqual([
      { id: 'r1', verdict: 'yes', rationale: 'done' },
      { id: 'r2', verdict: 'no' },
      { id: 'r3', verdict: 'no verdict' },
    ])
  })

  it('finds rationales further down (one per sentence), not twice the top one', () => {
    const view = judgeView({
      rationale: 'top',
      steps: [{ sentences: [{ sentence: 's1', label: 'supported', rationale: 'in the tool output' }] }],
    })!
    expect(view.rationale).toBe('top')
    expect(view.notes).toEqual(['in the tool output'])
  })

  it('is undefined when there is nothing about a judge, and bounded when there is too much', () => {
    expect(judgeView({ match_type: 'EXACT', calls_seen: 2 })).toBeUndefined()
    expect(judgeView(null)).toBeUndefined()
    expect(judgeView(['reasoning'])).toBeUndefined()
    expect(judgeView({ sample_labels: Array(MAX_VOTES + 10).fill('VALID') })!.votes).toHaveLength(MAX_VOTES)
    let deep: Record<string, unknown> = { rationale: 'too deep to matter' }
    for (let i = 0; i < 1000; i++) deep = { next: deep }
    expect(judgeView(deep)).toBeUndefined()
  })
})

/** Covers: src/core/criteria/rubric-final-response-quality/, src/core/criteria/rubric-tool-use-quality/, src/core/judging/rubric-criterion.ts. */
import { describe, expect, it } from 'vitest'
import type { Rubric } from '../../../../src/adk/invocation.ts'
import { rubricBasedFinalResponseQualityV1 as FRQ } from '../../../../src/core/criteria/rubric-final-response-quality/criterion.ts'
import { rubricBasedToolUseQualityV1 as TUQ } from '../../../../src/core/criteria/rubric-tool-use-quality/criterion.ts'
import type { InvocationScore } from '../../../../src/core/criterion.ts'
import { loadVectors } from '../judging/load-vectors.ts'
import { answerAll, judgeOutcome, scoreResult, texts, turn } from './judged-helpers.ts'

const rubric = (id: string, text: string, type?: string): Rubric => ({ rubric_id: id, rubric_content: { text_property: text }, type })
const polite = rubric('polite', 'The response is polite.')
const concise = rubric('concise', 'The response is concise.', 'FINAL_RESPONSE_QUALITY')
const usesSearch = rubric('search', 'The agent calls search first.', 'TOOL_USE_QUALITY')

const actual = turn('Find me a flight', 'I booked flight BA1.', {
  intermediate_data: {
    invocation_events: [
      { author: 'booker', content: { parts: [{ function_call: { id: 'c1', name: 'search', args: { to: 'LHR' } } }] } },
      { author: 'booker', content: { parts: [{ function_response: { id: 'c1', name: 'search', response: { flights: ['BA1'] } } }] } },
    ],
  },
  app_details: {
    agent_details: { booker: { name: 'booker', instructions: 'Book flights politely.', tool_declarations: [{ name: 'search' }] } },
  },
})

const jsonAnswer = (...entries: Array<[string, 'yes' | 'no']>) =>
  JSON.stringify({ properties: entries.map(([id, verdict]) => ({ rubric_id: id, property: '?', rationale: `${id} ${verdict}`, verdict })) })

function start(criterionRubrics: Rubric[], caseRubrics?: Rubric[], numSamples = 3, criterion = FRQ) {
  const config = criterion.config.parse({ threshold: 0.5, rubrics: criterionRubrics, judge_model_options: { num_samples: numSamples } })
  return criterion.finish(criterion.init({ config, caseRubrics, key: 'sess/0' }), actual)
}

describe('rubric criteria: effective rubrics', () => {
  it('per-invocation-only rubrics work (ADK v2.0 crashes: #4926), filtered by type', () => {
    const outcome = judgeOutcome(start([], [concise, usesSearch]))
    const prompt = outcome.requests[0]?.prompt ?? ''
    expect(prompt).toContain('The response is concise.')
    expect(prompt).not.toContain('The agent calls search first.')
    const tool = judgeOutcome(start([], [concise, usesSearch], 3, TUQ)).requests[0]?.prompt ?? ''
    expect(tool).toContain('The agent calls search first.')
    expect(tool).not.toContain('The response is concise.')
  })

  it('criterion rubrics are not filtered by type and come first', () => {
    const prompt = judgeOutcome(start([polite, usesSearch], [concise])).requests[0]?.prompt ?? ''
    expect(prompt.indexOf('polite')).toBeLessThan(prompt.indexOf('concise'))
    expect(prompt).toContain('The agent calls search first.')
  })

  it('duplicate rubric_id: NOT_EVALUATED with the reason', () => {
    const result = scoreResult(start([polite], [{ ...polite, type: 'FINAL_RESPONSE_QUALITY' }]))
    expect(result.score).toBeNull()
    expect(result.reason).toMatch(/duplicate rubric_id 'polite'/)
  })

  it('no effective rubrics: null with the reason', () => {
    const result = scoreResult(start([], [usesSearch]))
    expect(result.score).toBeNull()
    expect(result.reason).toMatch(/no rubrics apply/)
  })
})

describe('rubric criteria: prompts', () => {
  it('final response quality shows instructions, tools, tool steps and the final answer', () => {
    const prompt = judgeOutcome(start([polite])).requests[0]?.prompt ?? ''
    for (const s of ['Book flights politely.', '"search"', '"LHR"', '"BA1"', 'I booked flight BA1.', 'Find me a flight']) {
      expect(prompt).toContain(s)
    }
  })
  it('tool use quality does not show the final answer', () => {
    const prompt = judgeOutcome(start([polite], undefined, 3, TUQ)).requests[0]?.prompt ?? ''
    expect(prompt).toContain('"LHR"')
    expect(prompt).not.toContain('I booked flight BA1.')
  })
})

describe('rubric criteria: votes and parsing', () => {
  it('JSON answers, vote per rubric_id (ties negative), score = mean of chosen', () => {
    const outcome = judgeOutcome(start([polite, concise], undefined, 4))
    const result = scoreResult(
      outcome.resume(
        answerAll(
          outcome.requests,
          texts(
            jsonAnswer(['polite', 'yes'], ['concise', 'yes']),
            jsonAnswer(['polite', 'yes'], ['concise', 'no']),
            jsonAnswer(['polite', 'no'], ['concise', 'no']),
            jsonAnswer(['polite', 'yes'], ['concise', 'yes']),
          ),
        ),
      ),
    )
    expect(result.score).toBe(0.5)
    expect(result.details?.rubric_scores).toEqual([
      { rubric_id: 'polite', rationale: 'polite yes', score: 1 },
      { rubric_id: 'concise', rationale: 'concise no', score: 0 },
    ])
  })

  it("falls back to ADK's Property/Rationale/Verdict text, matched by property text", () => {
    const outcome = judgeOutcome(start([polite, concise], undefined, 1))
    const adk =
      'Property: the response is polite.\nRationale: says please\nVerdict: yes\nProperty: Something else\nRationale: x\nVerdict: no'
    const result = scoreResult(outcome.resume(answerAll(outcome.requests, texts(adk))))
    expect(result.score).toBe(1)
    expect(result.details?.rubric_scores).toEqual([{ rubric_id: 'polite', rationale: 'says please', score: 1 }])
    expect(result.details?.samples).toEqual([{ parsed_with: 'adk-text', rubrics_read: 1 }])
  })

  it('all unparseable or failed: null with a reason', () => {
    const outcome = judgeOutcome(start([polite]))
    const garbage = scoreResult(outcome.resume(answerAll(outcome.requests, texts('no idea', '**Verdict:** yes'))))
    expect(garbage.score).toBeNull()
    expect(garbage.reason).toMatch(/no rubric got a yes\/no verdict/)
    const failed = scoreResult(outcome.resume(answerAll(outcome.requests, [{ error: 'deadline exceeded' }])))
    expect(failed.reason).toContain('deadline exceeded')
  })

  it('decided() stops early once every rubric is settled', () => {
    const request = judgeOutcome(start([polite, concise], undefined, 5)).requests[0]
    const yes = jsonAnswer(['polite', 'yes'], ['concise', 'yes'])
    expect(request?.decided?.([yes, yes, yes])).toBe(true)
    expect(request?.decided?.([yes, yes])).toBe(false)
    expect(request?.decided?.([jsonAnswer(['polite', 'yes']), yes, yes])).toBe(false)
  })
})

type AggVector = {
  id: string
  metric: string
  threshold: number
  per_invocation_rubric_scores: Array<Array<{ rubric_id: string; score?: number }>>
  expected: {
    overall_score: number | null
    overall_eval_status: string
    overall_rubric_scores: Array<{ rubric_id: string; score: number }>
  }
}
const AGG = loadVectors<{ vectors: AggVector[] }>('aggregation.json').vectors.filter((v) => v.metric === 'rubric_based_*')

describe('rubric aggregation vectors (flattened mean)', () => {
  it.each(AGG.map((v) => [v.id, v] as const))('%s', (_, v) => {
    const scores: InvocationScore[] = v.per_invocation_rubric_scores.map((rubricScores) => ({
      score: null,
      details: { rubric_scores: rubricScores },
    }))
    for (const criterion of [FRQ, TUQ]) {
      const overall = criterion.aggregate?.(scores, criterion.config.parse({ threshold: v.threshold }))
      expect(overall?.score).toBe(v.expected.overall_score)
      expect(overall?.status).toBe(v.expected.overall_eval_status)
      const perRubric = (overall?.details?.overall_rubric_scores ?? []) as Array<{ rubric_id: string; score: number }>
      expect(perRubric.map((r) => ({ rubric_id: r.rubric_id, score: r.score }))).toEqual(v.expected.overall_rubric_scores)
    }
  })
})

describe('rubric JSON verdicts outside the enum', () => {
  it("are read with ADK's substring rule", () => {
    const outcome = judgeOutcome(start([polite, concise], undefined, 1))
    const answer = JSON.stringify({
      properties: [
        { rubric_id: 'polite', rationale: 'a', verdict: 'Yes.' },
        { rubric_id: 'concise', rationale: 'b', verdict: 'N/A' },
      ],
    })
    const result = scoreResult(outcome.resume(answerAll(outcome.requests, texts(answer))))
    expect(result.details?.rubric_scores).toEqual([
      { rubric_id: 'polite', rationale: 'a', score: 1 },
      { rubric_id: 'concise', rationale: 'b' },
    ])
    expect(result.score).toBe(1)
  })
})

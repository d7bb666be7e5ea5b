/** Covers: src/core/criteria/final-response-match-v2/. */
import { describe, expect, it } from 'vitest'
import { finalResponseMatchV2 as C } from '../../../../src/core/criteria/final-response-match-v2/criterion.ts'
import type { InvocationScore } from '../../../../src/core/criterion.ts'
import { loadVectors } from '../judging/load-vectors.ts'
import { answerAll, judgeOutcome, scoreResult, texts, turn } from './judged-helpers.ts'

const config = C.config.parse({ threshold: 0.5 })
const expected = turn('What is 2+2?', 'It is 4.')
const actual = turn('What is 2+2?', 'The answer is four.')
const json = (label: string, reasoning = `because ${label}`) => JSON.stringify({ reasoning, is_the_agent_response_valid: label })

function run(samples: Parameters<typeof answerAll>[1], key = 's1/0') {
  const outcome = judgeOutcome(C.finish(C.init({ config, expected, key }), actual))
  return { outcome, result: scoreResult(outcome.resume(answerAll(outcome.requests, samples))) }
}

describe('final_response_match_v2', () => {
  it('parses its config with ADK defaults and both casings', () => {
    expect(config.judge_model_options).toEqual({ judge_model: 'gemini-2.5-flash', num_samples: 5 })
    const camel = C.config.parse({ threshold: 1, judgeModelOptions: { judgeModel: 'm', numSamples: 3, extra: 1 } })
    expect(camel.judge_model_options).toMatchObject({ judge_model: 'm', num_samples: 3, extra: 1 })
    expect(C.config.safeParse({ threshold: 1, judge_model_options: { num_samples: 0 } }).success).toBe(false)
  })

  it('without an expected invocation: null with a reason, no judge call', () => {
    const result = scoreResult(C.finish(C.init({ config, key: 'k' }), actual))
    expect(result.score).toBeNull()
    expect(result.reason).toMatch(/expected invocation/)
  })

  it('describes one request: model, samples, schema, prompt with all three texts, stable id', () => {
    const { outcome } = run(texts(json('valid')))
    const [request] = outcome.requests
    expect(outcome.requests).toHaveLength(1)
    expect(request).toMatchObject({ model: 'gemini-2.5-flash', samples: 5 })
    expect(request?.responseJsonSchema).toBeDefined()
    expect(request?.prompt).toContain('What is 2+2?')
    expect(request?.prompt).toContain('The answer is four.')
    expect(request?.prompt).toContain('It is 4.')
    const again = judgeOutcome(C.finish(C.init({ config, expected, key: 's1/0' }), actual)).requests[0]
    const other = judgeOutcome(C.finish(C.init({ config, expected, key: 's1/1' }), actual)).requests[0]
    expect(again?.id).toBe(request?.id)
    expect(other?.id).not.toBe(request?.id)
  })

  it('include_intermediate_responses_in_final puts intermediate texts before the final text', () => {
    const withEvents = turn('q', 'final', {
      intermediate_data: { invocation_events: [{ author: 'a', content: { parts: [{ text: 'thinking aloud' }] } }] },
    })
    const on = C.config.parse({ threshold: 1, include_intermediate_responses_in_final: true })
    const request = judgeOutcome(C.finish(C.init({ config: on, expected, key: 'k' }), withEvents)).requests[0]
    expect(request?.prompt).toContain('thinking aloud\nfinal')
    const off = judgeOutcome(C.finish(C.init({ config, expected, key: 'k' }), withEvents)).requests[0]
    expect(off?.prompt).not.toContain('thinking aloud')
  })

  it("majority valid: score 1 with the first positive sample's reasoning", () => {
    const { result } = run(texts(json('invalid', 'no'), json('valid', 'first yes'), json('valid'), json('valid'), json('invalid')))
    expect(result.score).toBe(1)
    expect(result.details).toMatchObject({ label: 'VALID', reasoning: 'first yes', parsed_with: 'adk-text' })
  })

  it("keeps every sample's reasoning beside its vote, and which sample the vote kept", () => {
    const { result } = run(texts(json('invalid', 'no'), 'garbage', json('valid', 'first yes'), json('valid', 'yes again')))
    expect(result.details).toMatchObject({
      sample_labels: ['INVALID', 'NOT_FOUND', 'VALID', 'VALID'],
      sample_reasoning: ['no', null, 'first yes', 'yes again'],
      chosen_sample: 2,
      reasoning: 'first yes',
    })
  })

  it('a tie goes to invalid; unparseable samples do not vote', () => {
    const { result } = run(texts(json('valid'), 'garbage', json('invalid', 'the no'), json('valid'), json('invalid')))
    expect(result.score).toBe(0)
    expect(result.details).toMatchObject({ reasoning: 'the no', sample_labels: ['VALID', 'NOT_FOUND', 'INVALID', 'VALID', 'INVALID'] })
  })

  it("reads ADK-style answers that are not JSON with ADK's text parser", () => {
    const adkStyle = '```json\n{\n  "is_the_agent_response_valid": ["valid"],\n  "reasoning": "ok",\n}\n```'
    const { result } = run(texts(adkStyle, adkStyle, 'Valid!'))
    expect(result.score).toBe(1)
    expect(result.details).toMatchObject({ parsed_with: 'adk-text', sample_labels: ['VALID', 'VALID', 'NOT_FOUND'] })
  })

  it("a JSON answer ADK's regex cannot read does not vote, however valid its JSON (ADK parity)", () => {
    const spaced = '{"reasoning": "looks right", "is_the_agent_response_valid" : "valid"}'
    const { result } = run(texts(spaced, spaced, spaced))
    expect(result.score).toBeNull()
    expect(result.reason).toMatch(/no judge sample gave a valid\/invalid label/)
    expect(result.details).toMatchObject({ sample_labels: ['NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND'], reasoning: 'looks right' })
    // Among readable samples, the unreadable one is simply left out of the vote.
    const mixed = run(texts(spaced, json('invalid', 'wrong'), spaced)).result
    expect(mixed).toMatchObject({ score: 0, details: { label: 'INVALID', reasoning: 'wrong' } })
  })

  it('all unparseable: null with a reason', () => {
    const { result } = run(texts('hmm', '{"is_the_agent_response_valid": "Valid"}'))
    expect(result.score).toBeNull()
    expect(result.reason).toMatch(/no judge sample gave a valid\/invalid label/)
  })

  it('all samples failed: null, the reason carries the error text; one failure alone is just unparsed', () => {
    expect(run([{ error: 'HTTP 429 quota' }, { error: 'HTTP 429 quota' }]).result.reason).toContain('HTTP 429 quota')
    expect(run([{ error: 'boom' }, { text: json('valid') }]).result.score).toBe(1)
  })

  it('a missing answer is a failure, not a score', () => {
    const outcome = judgeOutcome(C.finish(C.init({ config, expected, key: 'k' }), actual))
    const result = scoreResult(outcome.resume([]))
    expect(result.score).toBeNull()
    expect(result.reason).toMatch(/no judge answer/)
  })

  it('decided(): stops once the vote cannot change, reading texts like resume does', () => {
    const request = run(texts(json('valid'))).outcome.requests[0]
    expect(request?.decided?.([json('valid'), json('valid'), json('valid')])).toBe(true)
    expect(request?.decided?.([json('valid'), json('valid')])).toBe(false)
    expect(request?.decided?.([json('invalid'), json('invalid'), json('invalid')])).toBe(true)
    expect(request?.decided?.(['junk', 'junk', 'junk', 'junk'])).toBe(false)
  })
})

type AggVector = {
  id: string
  metric: string
  threshold: number
  per_invocation: Array<{ score: number | null; eval_status: InvocationScore['status'] }>
  expected: { overall_score: number | null; overall_eval_status: string }
}
const AGG = loadVectors<{ vectors: AggVector[] }>('aggregation.json').vectors.filter((v) => v.metric === 'final_response_match_v2')

describe('final_response_match_v2 aggregation vectors', () => {
  it.each(AGG.map((v) => [v.id, v] as const))('%s', (_, v) => {
    const scores: InvocationScore[] = v.per_invocation.map((p) => ({ score: p.score, status: p.eval_status }))
    const overall = C.aggregate?.(scores, { ...config, threshold: v.threshold })
    expect(overall?.score).toBe(v.expected.overall_score)
    expect(overall?.status).toBe(v.expected.overall_eval_status)
  })
})

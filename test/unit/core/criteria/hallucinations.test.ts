/** Covers: src/core/criteria/hallucinations/. */
import { describe, expect, it } from 'vitest'
import { hallucinationsV1 as C } from '../../../../src/core/criteria/hallucinations/criterion.ts'
import type { InvocationScore, JudgeAnswer } from '../../../../src/core/criterion.ts'
import { loadVectors } from '../judging/load-vectors.ts'
import { answerAll, judgeOutcome, scoreResult, texts, turn } from './judged-helpers.ts'

const actual = turn('Weather in Paris?', 'It is sunny in Paris. Take sunglasses.', {
  intermediate_data: {
    invocation_events: [
      { author: 'weather', content: { parts: [{ text: 'Let me check Paris.' }, { text: 'One moment.' }] } },
      { author: 'weather', content: { parts: [{ function_call: { id: 'c1', name: 'get_weather', args: { city: 'Paris' } } }] } },
      { author: 'weather', content: { parts: [{ function_response: { id: 'c1', name: 'get_weather', response: { sky: 'sunny' } } }] } },
    ],
  },
  app_details: { agent_details: { weather: { name: 'weather', instructions: 'Report the weather.', tool_declarations: [] } } },
})

const segJson = (...sentences: string[]) => JSON.stringify({ sentences })
const valJson = (...labels: string[]) =>
  JSON.stringify({ sentences: labels.map((label, i) => ({ sentence: `s${i}`, label, rationale: `r${i}`, supporting_excerpt: null })) })
const valText = (...labels: string[]) =>
  labels.map((l, i) => `sentence: s${i}\nlabel: ${l}\nrationale: r${i}\nsupporting_excerpt: null\ncontradicting_excerpt: null`).join('\n\n')

function start(evaluateIntermediate: boolean) {
  const config = C.config.parse({
    threshold: 0.5,
    evaluate_intermediate_nl_responses: evaluateIntermediate,
    judge_model_options: { num_samples: 5 },
  })
  return judgeOutcome(C.finish(C.init({ config, key: 'sess/0' }), actual))
}

const byStep = (requests: { id: string }[], perRequest: string[]): JudgeAnswer[] =>
  requests.map((r, i) => ({ id: r.id, via: 'gemini', samples: [{ text: perRequest[i] as string }] }))

describe('hallucinations_v1', () => {
  it('final text only by default; one sample per call whatever num_samples says', () => {
    const first = start(false)
    expect(first.requests).toHaveLength(1)
    expect(first.requests[0]?.samples).toBe(1)
    expect(first.requests[0]?.prompt).toContain('It is sunny in Paris. Take sunglasses.')
  })

  it('two rounds: segmenter, then validator; score = mean of step means', () => {
    const first = start(true)
    // Each intermediate text part is its own step, then the final text.
    expect(first.requests.map((r) => r.prompt.includes('Let me check Paris.'))).toEqual([true, false, false])
    const second = judgeOutcome(
      first.resume(
        byStep(first.requests, [
          segJson('Let me check Paris.'),
          '<sentence>One moment.</sentence>',
          segJson('It is sunny in Paris.', 'Take sunglasses.', 'Bye.'),
        ]),
      ),
    )
    expect(second.requests).toHaveLength(3)
    // The intermediate step is checked against what came before it only; the final one sees the tool result.
    expect(second.requests[0]?.prompt).not.toContain('sunny')
    expect(second.requests[0]?.prompt).toContain('Report the weather.')
    expect(second.requests[2]?.prompt).toContain('"sky": "sunny"')
    expect(second.requests[2]?.prompt).toContain('Let me check Paris.')
    const result = scoreResult(
      second.resume(
        byStep(second.requests, [valJson('not_applicable'), valText('supported'), valText('supported', 'unsupported', '`supported`')]),
      ),
    )
    // steps: 1, 1, 1/2 (the backticked label is ignored) -> mean 5/6
    expect(result.score).toBeCloseTo(5 / 6, 12)
    const steps = result.details?.steps as Array<
      { source: string; score: number; sentences: Array<{ label: string; score: number | null }> }
    >
    expect(steps.map((s) => s.source)).toEqual(['intermediate', 'intermediate', 'final'])
    expect(steps[2]?.sentences.map((s) => [s.label, s.score])).toEqual([['supported', 1], ['unsupported', 0], ['`supported`', null]])
  })

  it('a failed segmenter nulls only its step', () => {
    const first = start(true)
    const answers: JudgeAnswer[] = [
      { id: first.requests[0]?.id as string, via: 'gemini', samples: [{ error: 'HTTP 500' }] },
      { id: first.requests[1]?.id as string, via: 'gemini', samples: [{ text: 'no tags here' }] },
      { id: first.requests[2]?.id as string, via: 'gemini', samples: [{ text: segJson('It is sunny in Paris.') }] },
    ]
    const second = judgeOutcome(first.resume(answers))
    expect(second.requests).toHaveLength(1)
    const result = scoreResult(second.resume(answerAll(second.requests, texts(valJson('contradictory')))))
    expect(result.score).toBe(0)
    const steps = result.details?.steps as Array<{ score: number | null; reason?: string }>
    expect(steps[0]?.reason).toContain('HTTP 500')
    expect(steps[1]?.reason).toMatch(/no sentences/)
  })

  it('nothing scorable: null with the reasons', () => {
    const first = start(false)
    const second = judgeOutcome(first.resume(answerAll(first.requests, texts(segJson('A.')))))
    const result = scoreResult(second.resume(answerAll(second.requests, texts(valText('maybe')))))
    expect(result.score).toBeNull()
    expect(result.reason).toMatch(/no sentence got a known label/)
    const segFailed = scoreResult(first.resume(answerAll(first.requests, [{ error: 'quota' }])))
    expect(segFailed.score).toBeNull()
    expect(segFailed.reason).toContain('quota')
  })

  it('no agent text: null, no judge call', () => {
    const config = C.config.parse({ threshold: 0.5 })
    const result = scoreResult(C.finish(C.init({ config, key: 'k' }), turn('hi', '')))
    expect(result.score).toBeNull()
    expect(result.reason).toMatch(/no text/)
  })
})

type HallucAgg = {
  id: string
  metric?: string
  threshold: number
  step_scores?: Array<number | null>
  expected_invocation_score?: number
  expected?: {
    per_invocation: Array<{ score: number | null; eval_status: string }>
    overall_score: number | null
    overall_eval_status: string
  }
}
const AGG = loadVectors<{ vectors: HallucAgg[] }>('aggregation.json').vectors

describe('hallucinations_v1 aggregation vectors', () => {
  it.each(AGG.filter((v) => v.metric === 'hallucinations_v1').map((v) => [v.id, v] as const))('%s overall', (_, v) => {
    const scores: InvocationScore[] = (v.expected?.per_invocation ?? []).map((p) => ({ score: p.score }))
    const overall = C.aggregate?.(scores, C.config.parse({ threshold: v.threshold }))
    expect(overall?.score).toBe(v.expected?.overall_score)
    expect(overall?.status).toBe(v.expected?.overall_eval_status)
  })

  // The step scores are ADK's mocked accuracies; drive them through the criterion as sentence labels.
  it.each(AGG.filter((v) => v.id.startsWith('agg-halluc-steps')).map((v) => [v.id, v] as const))('%s invocation', (_, v) => {
    const first = start(true)
    const labelsFor = (score: number | null): string[] =>
      score === null
        ? []
        : score === 1
        ? ['supported']
        : score === 0.8
        ? ['supported', 'supported', 'supported', 'supported', 'disputed']
        : ['supported', 'supported', 'unsupported']
    const steps = v.step_scores ?? []
    const segAnswers = first.requests.map((r, i) => ({
      id: r.id,
      via: 'gemini' as const,
      samples: [{ text: i < steps.length ? segJson('x') : '' }],
    }))
    const second = judgeOutcome(first.resume(segAnswers))
    const result = scoreResult(
      second.resume(byStep(second.requests, steps.map((s) => (s === null ? 'unreadable' : valText(...labelsFor(s)))))),
    )
    expect(result.score).toBeCloseTo(v.expected_invocation_score as number, 12)
  })
})

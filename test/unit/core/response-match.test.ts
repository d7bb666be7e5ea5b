import { describe, expect, it } from 'vitest'
import { AdkEvent } from '../../../src/adk/event.ts'
import { Invocation } from '../../../src/adk/invocation.ts'
import type { InvocationScore, Provisional } from '../../../src/core/criterion.ts'
import { NO_REFERENCE_REASON, responseMatchScore } from '../../../src/core/criteria/response-match.ts'
import { statusFor } from '../../../src/adk/status.ts'
import { rouge1 } from '../../../src/core/text/rouge.ts'
import { readShared } from '../../support/shared-data.ts'

/** The shared ADK vectors/samples (test/fixtures/shared). */
function shared(folder: 'vectors' | 'samples', name: string): string {
  return readShared(folder, name)
}

const invocation = (finalText: string | undefined, parts?: unknown[]) =>
  Invocation.parse({
    user_content: { role: 'user', parts: [{ text: 'question' }] },
    final_response: parts
      ? { role: 'model', parts }
      : finalText === undefined
      ? undefined
      : { role: 'model', parts: [{ text: finalText }] },
  })

function scoreOne(config: unknown, expected: Invocation | undefined, actual: Invocation): InvocationScore {
  const parsed = responseMatchScore.config.parse(config)
  const state = responseMatchScore.init({ config: parsed, expected, key: 'k' })
  const outcome = responseMatchScore.finish(state, actual)
  if (outcome.kind !== 'score') throw new Error('response_match_score never asks a judge')
  return outcome.result
}

type EvaluatorVector = {
  id: string
  threshold: number
  pairs: Array<{ candidate: string; reference: string }>
  expected: { per_invocation_scores: number[]; per_invocation_status: string[]; overall_score: number; overall_eval_status: string }
}
const EVALUATOR: EvaluatorVector[] = JSON.parse(shared('vectors', 'rouge.json')).evaluator_vectors

describe('response_match_score against the ADK evaluator vectors', () => {
  it('has vectors to check', () => expect(EVALUATOR.length).toBeGreaterThanOrEqual(5))

  it.each(EVALUATOR.map((v) => [v.id, v] as const))('%s', (_id, v) => {
    const results = v.pairs.map((p) => scoreOne({ threshold: v.threshold }, invocation(p.reference), invocation(p.candidate)))
    expect(results.map((r) => r.score)).toEqual(v.expected.per_invocation_scores)
    expect(results.map((r) => statusFor(r.score, v.threshold))).toEqual(v.expected.per_invocation_status)
    const overall = responseMatchScore.aggregate!(results, { threshold: v.threshold, tokenizer: 'adk' })
    expect(overall.score).toBe(v.expected.overall_score)
    expect(overall.status).toBe(v.expected.overall_eval_status)
  })
})

describe('response_match_score', () => {
  it('is reference-based, not judged, and keeps unknown config keys', () => {
    expect(responseMatchScore.key).toBe('response_match_score')
    expect(responseMatchScore.needsExpected).toBe(true)
    expect(responseMatchScore.judged).toBe(false)
    expect(responseMatchScore.config.parse({ threshold: 0.5, extra: 1 })).toEqual({ threshold: 0.5, tokenizer: 'adk', extra: 1 })
    expect(responseMatchScore.config.safeParse({ threshold: 0.5, tokenizer: 'icu' }).success).toBe(false)
    expect(responseMatchScore.config.safeParse({}).success).toBe(false)
  })

  it('is NOT_EVALUATED with a reason when there is no expected invocation', () => {
    const r = scoreOne({ threshold: 0.5 }, undefined, invocation('anything'))
    expect(r).toMatchObject({ score: null, status: 'NOT_EVALUATED', reason: NO_REFERENCE_REASON })
    expect(NO_REFERENCE_REASON).toBe('response_match_score needs an expected invocation (a reference final response)')
  })

  it('scores 0 when the expected invocation has no final response, even for an empty answer', () => {
    expect(scoreOne({ threshold: 0.5 }, invocation(undefined), invocation('hello')).score).toBe(0)
    expect(scoreOne({ threshold: 0.5 }, invocation(undefined), invocation(undefined)).score).toBe(0)
  })

  it('joins text parts with \\n as ADK does, skipping calls and keeping thoughts', () => {
    const actual = invocation(undefined, [{ text: 'thinking hard', thought: true }, { function_call: { name: 'f' } }, { text: 'Paris' }])
    const r = scoreOne({ threshold: 0.5 }, invocation('Paris'), actual)
    expect(r.score).toBe(rouge1('thinking hard\nParis', 'Paris').fmeasure)
    expect(r.details).toEqual({ precision: 1 / 3, recall: 1 })
  })

  it('scores a Japanese answer with tokenizer: unicode, and 0 by default as ADK does', () => {
    const expected = invocation('東京は晴れです')
    const actual = invocation('東京は今日晴れです')
    expect(scoreOne({ threshold: 0.5 }, expected, actual).score).toBe(0)
    const u = scoreOne({ threshold: 0.5, tokenizer: 'unicode' }, expected, actual)
    expect(u.score).toBe(rouge1('東京は今日晴れです', '東京は晴れです', { tokenizer: 'unicode' }).fmeasure)
    expect(u.score).toBeGreaterThan(0.5)
  })

  it('scores every run on one expected invocation alike, whatever was scored on it before and with which tokenizer', () => {
    // Runs on one expected invocation share its reference's unigrams: scoring must not change them.
    const expected = invocation('東京は晴れです and Paris is sunny')
    const answers = ['東京は今日晴れです', 'Paris is sunny', 'Paris Paris Paris sunny sunny', '']
    for (const tokenizer of ['adk', 'unicode', 'adk', 'unicode'] as const) {
      for (const answer of answers) {
        const r = scoreOne({ threshold: 0.5, tokenizer }, expected, invocation(answer))
        expect(r.score).toBe(rouge1(answer, '東京は晴れです and Paris is sunny', { tokenizer }).fmeasure)
      }
    }
  })
})

describe('response_match_score while the answer streams', () => {
  const events = shared('samples', 'adk-js-weather-streaming.sse')
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => AdkEvent.parse(JSON.parse(line.slice(6))))
  const reference = 'In Paris it is sunny and 21C; the local time is 10:30.'

  it('follows the partial chunks of the ADK JS capture, then waits for the complete event', () => {
    const config = responseMatchScore.config.parse({ threshold: 0.5 })
    let state = responseMatchScore.init({ config, expected: invocation(reference), key: 'k' })
    const seen: Array<Provisional | null> = []
    let streamed = ''
    for (const event of events) {
      state = responseMatchScore.step!(state, event)
      const p = responseMatchScore.progress!(state)
      seen.push(p)
      if (event.partial) {
        streamed += event.content!.parts![0]!.text
        const { precision, recall, fmeasure } = rouge1(streamed, reference)
        expect(p).toEqual({ final: false, score: fmeasure, details: { precision, recall } })
      }
    }
    const provisional = seen.filter((p) => p !== null)
    expect(provisional).toHaveLength(events.filter((e) => e.partial).length)
    expect(provisional.length).toBeGreaterThanOrEqual(3)
    // The complete event ends the message: no provisional score after it, finish decides.
    expect(seen.at(-1)).toBeNull()
    const last = events.at(-1)!
    const outcome = responseMatchScore.finish(state, invocation(undefined, last.content!.parts))
    expect(outcome.kind === 'score' && outcome.result.score).toBe(provisional.at(-1)!.score)
  })

  it('gives no provisional score without a reference', () => {
    const config = responseMatchScore.config.parse({ threshold: 0.5 })
    let state = responseMatchScore.init({ config, key: 'k' })
    expect(events.some((e) => e.partial)).toBe(true)
    for (const event of events) {
      state = responseMatchScore.step!(state, event)
      expect(responseMatchScore.progress!(state)).toBeNull()
    }
  })

  it('starts over when a complete event ends a streamed message', () => {
    const config = responseMatchScore.config.parse({ threshold: 0.5 })
    let state = responseMatchScore.init({ config, expected: invocation('hello world'), key: 'k' })
    const chunk = (text: string, partial: boolean) =>
      AdkEvent.parse({ author: 'agent', partial, content: { role: 'model', parts: [{ text }] } })
    state = responseMatchScore.step!(state, chunk('world ', true))
    state = responseMatchScore.step!(state, chunk('world', false))
    state = responseMatchScore.step!(state, chunk('hello', true))
    expect(responseMatchScore.progress!(state)).toEqual({
      final: false,
      score: rouge1('hello', 'hello world').fmeasure,
      details: { precision: 1, recall: 0.5 },
    })
    // A user event or a content-less event does not end the agent's message.
    state = responseMatchScore.step!(state, AdkEvent.parse({ author: 'user', content: { role: 'user', parts: [{ text: 'x' }] } }))
    state = responseMatchScore.step!(state, AdkEvent.parse({ author: 'agent', partial: false }))
    state = responseMatchScore.step!(state, chunk(' world', true))
    expect(responseMatchScore.progress!(state)?.score).toBe(1)
  })
})

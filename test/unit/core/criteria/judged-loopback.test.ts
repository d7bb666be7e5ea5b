/**
 * The judged criteria end to end through the real Gemini judge (@google/genai) against the loopback
 * Gemini-protocol stub: requests as the criteria describe them, answers as the SDK returns them.
 * Covers: src/core/criteria/final-response-match-v2/, src/core/criteria/hallucinations/ (against a loopback judge).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { finalResponseMatchV2 } from '../../../../src/core/criteria/final-response-match-v2/criterion.ts'
import { hallucinationsV1 } from '../../../../src/core/criteria/hallucinations/criterion.ts'
import type { InvocationScore, JudgeAnswer, JudgeRequest, Outcome } from '../../../../src/core/criterion.ts'
import { createGeminiJudge } from '../../../../src/judge/gemini.ts'
import { type GeminiStub, startGeminiStub } from '../../../support/gemini-stub.ts'
import { turn } from './judged-helpers.ts'

let stub: GeminiStub
beforeAll(async () => {
  stub = await startGeminiStub()
})
afterAll(() => stub?.close())

async function settle(outcome: Outcome): Promise<InvocationScore> {
  const judge = createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: stub.url }, {
    retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 1 },
  })
  let current = outcome
  while (current.kind === 'judge') {
    const answers: JudgeAnswer[] = await Promise.all(current.requests.map((r: JudgeRequest) => judge.answer(r, {})))
    current = current.resume(answers)
  }
  return current.result
}

describe('judged criteria over the loopback Gemini stub', () => {
  it('final_response_match_v2: schema sent, five candidates voted', async () => {
    const valid = '{"reasoning": "same", "is_the_agent_response_valid": "valid"}'
    const invalid = '{"reasoning": "differs", "is_the_agent_response_valid": "invalid"}'
    stub.enqueue({ candidates: [invalid, valid, valid, invalid, valid] })
    const before = stub.requests.length
    const config = finalResponseMatchV2.config.parse({ threshold: 1 })
    const outcome = finalResponseMatchV2.finish(
      finalResponseMatchV2.init({ config, expected: turn('2+2?', '4'), key: 's/0' }),
      turn('2+2?', 'four'),
    )
    const result = await settle(outcome)
    expect(result.score).toBe(1)
    expect(result.details).toMatchObject({ reasoning: 'same', parsed_with: 'adk-text' })
    const sent = stub.requests[before]
    expect(sent?.body.generationConfig).toMatchObject({ candidateCount: 5, responseMimeType: 'application/json' })
    expect(sent?.body.generationConfig.responseJsonSchema.required).toContain('is_the_agent_response_valid')
  })

  it('hallucinations_v1: segmenter then validator round trips', async () => {
    stub.enqueue(
      { candidates: ['{"sentences": ["It is 4.", "Math is fun."]}'] },
      {
        candidates: [
          'sentence: It is 4.\nlabel: supported\nrationale: r\nsupporting_excerpt: 4\ncontradicting_excerpt: null\n\nsentence: Math is fun.\nlabel: unsupported\nrationale: r\nsupporting_excerpt: null\ncontradicting_excerpt: null',
        ],
      },
    )
    const config = hallucinationsV1.config.parse({ threshold: 0.5 })
    const result = await settle(
      hallucinationsV1.finish(hallucinationsV1.init({ config, key: 's/0' }), turn('2+2?', 'It is 4. Math is fun.')),
    )
    expect(result.score).toBe(0.5)
  })
})

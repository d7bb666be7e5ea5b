/** Covers: src/judge/retry.ts. */
// Retry-After on 429 and 503: read as seconds or an HTTP date, honoured through the real SDK (whose
// ApiError drops headers) and through Vertex's evaluateInstances, capped by MAX_RETRY_AFTER_MS.
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import type { JudgeRequest } from '../../../src/core/criterion.ts'
import { judgeConfigFromEnv } from '../../../src/config/judge-env.ts'
import { createGeminiJudge } from '../../../src/judge/gemini.ts'
import { MAX_RETRY_AFTER_MS, retryAfterMs } from '../../../src/judge/retry.ts'
import { apiError, type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'

const NOW = Date.parse('Mon, 23 Nov 2026 10:00:00 GMT')

describe('retryAfterMs', () => {
  it.each(
    [
      ['delay-seconds', '3', 3_000],
      ['zero seconds', '0', 0],
      ['surrounding spaces', ' 12 ', 12_000],
      ['IMF-fixdate', 'Mon, 23 Nov 2026 10:00:05 GMT', 5_000],
      ['obsolete RFC 850 date', 'Monday, 23-Nov-26 10:00:07 GMT', 7_000],
      ['a date in the past waits nothing', 'Mon, 23 Nov 2026 09:59:00 GMT', 0],
      ['absent', null, undefined],
      ['empty', '', undefined],
      ['negative seconds', '-5', undefined],
      ['fractional seconds', '1.5', undefined],
      ['garbage', 'soon', undefined],
    ] as const,
  )('%s', (_, header, expected) => {
    expect(retryAfterMs(header, NOW)).toBe(expected)
  })
})

let stub: GeminiStub
const sleeps: number[] = []
beforeEach(async () => {
  await stub?.close()
  stub = await startGeminiStub()
  sleeps.length = 0
})
afterAll(() => stub?.close())

const deps = { sleep: async (ms: number) => void sleeps.push(ms), random: () => 0.5, now: () => NOW }
const request: JudgeRequest = { id: 'r', model: 'gemini-2.5-flash', prompt: 'p', samples: 1 }
const gemini = () =>
  createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: stub.url }, {
    ...deps,
    retry: { attempts: 3, initialDelayMs: 1_000, maxDelayMs: 60_000 },
  })

describe('Gemini through the SDK', () => {
  it('waits what a 429 asks (seconds), instead of the backoff', async () => {
    stub.enqueue(apiError(429, 'quota', { 'retry-after': '7' }), { candidates: ['ok'] })
    expect((await gemini().answer(request, {})).samples).toEqual([{ text: 'ok' }])
    expect(sleeps).toEqual([7_000])
  })

  it('reads an HTTP date on a 503', async () => {
    stub.enqueue(apiError(503, 'overloaded', { 'retry-after': 'Mon, 23 Nov 2026 10:00:02 GMT' }), { candidates: ['ok'] })
    expect((await gemini().answer(request, {})).samples).toEqual([{ text: 'ok' }])
    expect(sleeps).toEqual([2_000])
  })

  it("caps a long Retry-After at MAX_RETRY_AFTER_MS, or at the policy's own cap", async () => {
    stub.enqueue(apiError(429, 'quota', { 'retry-after': '86400' }), { candidates: ['ok'] })
    await gemini().answer(request, {})
    expect(sleeps).toEqual([MAX_RETRY_AFTER_MS])
    stub.enqueue(apiError(429, 'quota', { 'retry-after': '30' }), { candidates: ['ok'] })
    const capped = createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: stub.url }, {
      ...deps,
      retry: { attempts: 2, initialDelayMs: 1_000, maxDelayMs: 60_000, maxRetryAfterMs: 5_000 },
    })
    await capped.answer(request, {})
    expect(sleeps).toEqual([MAX_RETRY_AFTER_MS, 5_000])
  })

  it('ignores Retry-After on other statuses and falls back to the backoff without one', async () => {
    stub.enqueue(apiError(500, 'boom', { 'retry-after': '9' }), apiError(429, 'quota'), { candidates: ['ok'] })
    await gemini().answer(request, {})
    expect(sleeps).toEqual([750, 1_500])
  })
})

describe('Vertex evaluateInstances', () => {
  it('honours Retry-After on a 429', async () => {
    stub.enqueue(apiError(429, 'quota', { 'retry-after': '4' }), { safetyScore: 0.9 })
    const config = judgeConfigFromEnv({
      GOOGLE_CLOUD_PROJECT: 'p',
      GOOGLE_CLOUD_LOCATION: 'us-central1',
      GOOGLE_CLOUD_ACCESS_TOKEN: 't',
      GEMINI_BASE_URL: stub.url,
      VERTEX_EVAL_BASE_URL: stub.url,
    })
    const judge = createGeminiJudge(config!, deps)
    const answer = await judge.answer({ ...request, assessment: { kind: 'safety', prompt: 'q', response: 'a' } }, {})
    expect(answer).toMatchObject({ via: 'vertex-safety', samples: [{ score: 0.9 }] })
    expect(sleeps).toEqual([4_000])
  })
})

/**
 * Token counts a judge's model backend reports are held to whole numbers from 0 to 2^53-1 before
 * they reach the executor's totals and /metrics: "many", negative, fractional and huge counts
 * count as 0. The real @google/genai SDK against the loopback Gemini stub.
 * Covers: src/judge/executor.ts, src/monitor/prometheus.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JudgeRequest } from '../../../src/core/criterion.ts'
import { createPrometheusMetrics } from '../../../src/monitor/prometheus.ts'
import { createJudgeExecutor } from '../../../src/judge/executor.ts'
import { createGeminiJudge } from '../../../src/judge/gemini.ts'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'

let stub: GeminiStub
beforeAll(async () => (stub = await startGeminiStub()))
afterAll(() => stub?.close())

const req = (id: string): JudgeRequest => ({ id, model: 'gemini-2.5-flash', prompt: `prompt ${id}`, samples: 1 })
const answer = (usageMetadata: Record<string, unknown>) => ({
  raw: JSON.stringify({
    candidates: [{ index: 0, content: { role: 'model', parts: [{ text: 'yes' }] }, finishReason: 'STOP' }],
    usageMetadata,
  }),
  contentType: 'application/json',
})

describe('judge token counts', () => {
  it('"many", negative, fractional and 1e308 counts add 0; good ones add up; /metrics stays numeric and never goes down', async () => {
    const metrics = createPrometheusMetrics()
    const judge = createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: stub.url }, {
      sleep: async () => {},
      random: () => 0,
    })
    const executor = createJudgeExecutor({ judge, concurrency: 1, observe: metrics.judge })
    const replies = [
      answer({ promptTokenCount: 150, candidatesTokenCount: 55 }),
      answer({ promptTokenCount: -100, candidatesTokenCount: 'many' }),
      answer({ promptTokenCount: 1e308, candidatesTokenCount: 2.5 }),
    ]
    for (const [i, reply] of replies.entries()) {
      stub.enqueue(reply)
      await executor.answer(req(`r${i}`))
    }
    expect(executor.stats()).toMatchObject({ promptTokens: 150, outputTokens: 55 })
    const text = metrics.render()
    expect(text).toContain('evalstream_judge_tokens_total{kind="prompt"} 150\n')
    expect(text).toContain('evalstream_judge_tokens_total{kind="output"} 55\n')
  })
})

describe('metrics counters', () => {
  it('ignore an increment that is not a finite number >= 0 (text, negative, NaN)', async () => {
    const { createRegistry } = await import('../../../src/monitor/prometheus-registry.ts')
    const r = createRegistry()
    const c = r.counter('t_total', 'T.')
    c.inc({}, 150)
    c.inc({}, 'many' as unknown as number)
    c.inc({}, -50)
    c.inc({}, Number.NaN)
    c.inc({}, 5)
    expect(c.get()).toBe(155)
    expect(r.render()).toContain('t_total 155\n')
  })
})

/**
 * The judge executor's `observe` hook (what /metrics counts as judge calls), in front of the real
 * Gemini judge (SDK against the loopback stub): every way a request settles is told once, with
 * its time and usage; and the registry's own guards (escaping, the series cap).
 * Covers: src/monitor/prometheus.ts, src/judge/executor.ts.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import type { JudgeRequest } from '../../../src/core/criterion.ts'
import { createRegistry, MAX_SERIES_PER_METRIC } from '../../../src/monitor/prometheus-registry.ts'
import { createJudgeExecutor, type JudgeCallRecord } from '../../../src/judge/executor.ts'
import { createGeminiJudge } from '../../../src/judge/gemini.ts'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'
import { parseExposition } from '../../support/metrics-exposition.ts'

let stub: GeminiStub
beforeEach(async () => {
  await stub?.close()
  stub = await startGeminiStub()
})
afterAll(() => stub?.close())

const gemini = () =>
  createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: stub.url }, { sleep: async () => {}, random: () => 0 })
const req = (id: string): JudgeRequest => ({ id, model: 'gemini-2.5-flash', prompt: `prompt ${id}`, samples: 1 })

function observed(options: Partial<Parameters<typeof createJudgeExecutor>[0]> = {}) {
  const records: JudgeCallRecord[] = []
  const executor = createJudgeExecutor({ judge: gemini(), concurrency: 4, observe: (r) => void records.push(r), ...options })
  return { executor, records, outcomes: () => records.map((r) => r.outcome) }
}

describe('judge executor observe hook', () => {
  it('answered with usage and time, then cached; identical requests in flight are one call and one shared', async () => {
    stub.handle(() => ({ candidates: ['yes'], usage: { prompt: 11, output: 3 } }))
    const { executor, records, outcomes } = observed()
    await Promise.all([executor.answer(req('a')), executor.answer(req('a'))])
    await executor.answer(req('a'))
    expect(outcomes().sort()).toEqual(['answered', 'cached', 'shared'])
    const answered = records.find((r) => r.outcome === 'answered')!
    expect(answered.usage).toMatchObject({ requests: 1, promptTokens: 11, outputTokens: 3 })
    expect(answered.durationMs).toBeGreaterThanOrEqual(0)
    expect(stub.requests).toHaveLength(1)
  })

  it('failed when every sample is an error, refused by a budget, deadline when the judge hangs', async () => {
    stub.enqueue({ error: { code: 400, message: 'bad prompt', status: 'INVALID_ARGUMENT' } })
    const failing = observed()
    expect((await failing.executor.answer(req('f'))).samples[0]).toHaveProperty('error')
    expect(failing.outcomes()).toEqual(['failed'])

    const broke = observed({ budget: { perDeployment: 0 } })
    await broke.executor.answer(req('r'))
    expect(broke.outcomes()).toEqual(['refused'])

    stub.handle(() => ({ hang: true }))
    const slow = observed({ deadlineMs: 30 })
    await slow.executor.answer(req('d'))
    expect(slow.outcomes()).toEqual(['deadline'])
    expect(slow.records[0]!.durationMs).toBeGreaterThanOrEqual(25)
  })

  it('an observer that throws costs no answer', async () => {
    stub.handle(() => ({ candidates: ['ok'] }))
    const executor = createJudgeExecutor({
      judge: gemini(),
      concurrency: 1,
      observe: () => {
        throw new Error('broken metrics')
      },
    })
    expect((await executor.answer(req('t'))).samples).toEqual([{ text: 'ok' }])
  })
})

describe('metrics registry', () => {
  it('escapes label values and keeps at most MAX_SERIES_PER_METRIC series, folding the rest into other', () => {
    const r = createRegistry()
    const c = r.counter('t_total', 'help with \\ and\nnewline', ['k'])
    c.inc({ k: 'quote " back \\ nl \n' })
    for (let i = 0; i < MAX_SERIES_PER_METRIC + 5; i++) c.inc({ k: `v${i}` })
    const m = parseExposition(r.render())
    expect(m.value('t_total', { k: 'quote " back \\ nl \n' })).toBe(1)
    expect(m.samples).toHaveLength(MAX_SERIES_PER_METRIC + 1)
    expect(m.value('t_total', { k: 'other' })).toBe(6)
    expect(() => r.counter('t_total', 'again')).toThrow(/registered twice/)
  })

  it('tells label sets apart by every value, whatever characters the values hold, and counts each once per bump', () => {
    const r = createRegistry()
    const c = r.counter('pair_total', 'pairs', ['a', 'b'])
    // Joined with a separator these two sets would read the same; each label is its own level.
    c.inc({ a: 'x\u0000y', b: 'z' })
    c.inc({ a: 'x', b: 'y\u0000z' }, 2)
    c.inc({ b: 'z', a: 'x\u0000y' })
    c.inc({ a: 'only' })
    expect([c.get({ a: 'x\u0000y', b: 'z' }), c.get({ a: 'x', b: 'y\u0000z' }), c.get({ a: 'only', b: '' })]).toEqual([2, 2, 1])
    const h = r.histogram('pair_seconds', 'seconds', [1], ['a', 'b'])
    for (let i = 0; i < MAX_SERIES_PER_METRIC + 3; i++) h.observe(0.5, { a: `a${i % 7}`, b: `b${i}` })
    const m = parseExposition(r.render())
    expect(m.samples.filter((s) => s.name === 'pair_seconds_count')).toHaveLength(MAX_SERIES_PER_METRIC + 1)
    expect(m.value('pair_seconds_count', { a: 'other', b: 'other' })).toBe(3)
  })
})

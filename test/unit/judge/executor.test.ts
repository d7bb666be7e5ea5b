// The executor in front of the real Gemini judge (through the SDK and the loopback stub), and in
// front of scripted judges where only its own bookkeeping is under test.
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import type { JudgeRequest } from '../../../src/core/criterion.ts'
import { createMemoryJudgeCache } from '../../../src/judge/cache.ts'
import { createJudgeExecutor } from '../../../src/judge/executor.ts'
import { createGeminiJudge } from '../../../src/judge/gemini.ts'
import type { Judge } from '../../../src/judge/port.ts'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'

let stub: GeminiStub
beforeEach(async () => {
  await stub?.close()
  stub = await startGeminiStub()
})
afterAll(() => stub?.close())

const gemini = () =>
  createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: stub.url }, { sleep: async () => {}, random: () => 0 })
const req = (id: string, over: Partial<JudgeRequest> = {}): JudgeRequest => ({
  id,
  model: 'gemini-2.5-flash',
  prompt: `prompt ${id}`,
  samples: 1,
  ...over,
})

describe('createJudgeExecutor: cache', () => {
  it('answers a replayed request from the cache without a second model call', async () => {
    stub.handle(() => ({ candidates: ['x', 'y'], usage: { prompt: 40, output: 4 } }))
    const cache = createMemoryJudgeCache()
    const first = createJudgeExecutor({ judge: gemini(), concurrency: 2, cache })
    const answer = await first.answer(req('a', { samples: 2 }))
    expect(answer).toEqual({ id: 'a', via: 'gemini', samples: [{ text: 'x' }, { text: 'y' }] })
    expect(first.stats()).toMatchObject({ requests: 1, promptTokens: 40, outputTokens: 4, cacheHits: 0 })

    // A new executor over the same cache: what a Durable Object does after an eviction.
    const replay = createJudgeExecutor({ judge: gemini(), concurrency: 2, cache })
    expect(await replay.answer(req('a', { samples: 2 }))).toEqual(answer)
    expect(stub.requests).toHaveLength(1)
    expect(replay.stats()).toMatchObject({ requests: 0, cacheHits: 1 })
  })

  it('does not cache an answer whose samples all failed', async () => {
    stub.enqueue({ raw: 'oops', status: 200 }, { candidates: ['fine'] })
    const executor = createJudgeExecutor({ judge: gemini(), concurrency: 1 })
    expect((await executor.answer(req('b'))).samples[0]).toHaveProperty('error')
    expect((await executor.answer(req('b'))).samples).toEqual([{ text: 'fine' }])
    expect(stub.requests).toHaveLength(2)
  })

  it('shares one call between identical requests in flight', async () => {
    stub.handle(() => ({ candidates: ['same'], delayMs: 50 }))
    const executor = createJudgeExecutor({ judge: gemini(), concurrency: 4 })
    const [a, b] = await Promise.all([executor.answer(req('c')), executor.answer(req('c'))])
    expect(a).toEqual(b)
    expect(stub.requests).toHaveLength(1)
    expect(executor.stats().shared).toBe(1)
  })

  it('works with an async cache, and treats a failing cache as a miss', async () => {
    stub.handle(() => ({ candidates: ['stored'] }))
    const store = new Map<string, unknown>()
    const asyncCache = {
      get: async (id: string) => store.get(id) as never,
      put: async (id: string, answer: unknown) => void store.set(id, structuredClone(answer)),
    }
    const executor = createJudgeExecutor({ judge: gemini(), concurrency: 1, cache: asyncCache })
    await executor.answer(req('h'))
    expect(await createJudgeExecutor({ judge: gemini(), concurrency: 1, cache: asyncCache }).answer(req('h'))).toEqual(store.get('h'))
    expect(stub.requests).toHaveLength(1)

    const broken = {
      get: async () => Promise.reject(new Error('storage down')),
      put: () => {
        throw new Error('storage full')
      },
    }
    const answer = await createJudgeExecutor({ judge: gemini(), concurrency: 1, cache: broken }).answer(req('h'))
    expect(answer.samples).toEqual([{ text: 'stored' }])
    expect(stub.requests).toHaveLength(2)
  })

  it('evicts the least recently used entry', () => {
    const cache = createMemoryJudgeCache(2)
    const answer = (id: string) => ({ id, via: 'gemini' as const, samples: [{ text: id }] })
    cache.put('1', answer('1'))
    cache.put('2', answer('2'))
    cache.get('1')
    cache.put('3', answer('3'))
    expect([cache.get('1'), cache.get('2'), cache.get('3')].map((a) => a?.id)).toEqual(['1', undefined, '3'])
  })
})

describe('createJudgeExecutor: budgets', () => {
  it('ends a session over its budget in error samples that say why', async () => {
    stub.handle(() => ({ candidates: ['ok'] }))
    const executor = createJudgeExecutor({ judge: gemini(), concurrency: 1, budget: { perSession: 2 } })
    const answers = await executor.answerAll([req('d1'), req('d2'), req('d3')], { sessionId: 's1' })
    expect(answers.map((a) => a.samples[0])).toEqual([{ text: 'ok' }, { text: 'ok' }, {
      error: 'judge budget exceeded: 2 model calls per session',
    }])
    expect(stub.requests).toHaveLength(2)
    expect(executor.sessionCalls('s1')).toBe(2)
    // Another session has its own allowance.
    expect((await executor.answer(req('d4'), { sessionId: 's2' })).samples).toEqual([{ text: 'ok' }])
  })

  it('stops drawing single samples mid-request when the deployment budget runs out', async () => {
    stub.enqueue({ error: { code: 400, message: 'candidateCount must be 1', status: 'INVALID_ARGUMENT' } })
    stub.handle(() => ({ candidates: ['sample'] }))
    const executor = createJudgeExecutor({ judge: gemini(), concurrency: 1, budget: { perDeployment: 3 } })
    const answer = await executor.answer(req('e', { samples: 5 }), { sessionId: 's' })
    // 1 rejected batch call + 2 single calls = 3 calls; the last 3 samples are refused.
    expect(answer.samples).toEqual([
      { text: 'sample' },
      { text: 'sample' },
      ...Array(3).fill({ error: 'judge budget exceeded: 3 model calls per deployment' }),
    ])
    expect(executor.stats().budgetRefusals).toBe(1)
  })
})

describe('createJudgeExecutor: concurrency and abort', () => {
  it('never runs more requests at once than the limit', async () => {
    let active = 0
    let peak = 0
    const judge: Judge = {
      async answer(r) {
        active++
        peak = Math.max(peak, active)
        // Yield to the event loop (no timer): the other queued requests get their turn meanwhile.
        for (let i = 0; i < 3; i++) await new Promise((res) => setImmediate(res))
        active--
        return { id: r.id, via: 'gemini', samples: [{ text: r.id }] }
      },
    }
    const executor = createJudgeExecutor({ judge, concurrency: 3 })
    const answers = await executor.answerAll(Array.from({ length: 12 }, (_, i) => req(`p${i}`)))
    expect(answers.map((a) => a.id)).toEqual(Array.from({ length: 12 }, (_, i) => `p${i}`))
    expect(peak).toBe(3)
  })

  it('aborts a call in flight and a call still queued', async () => {
    stub.handle(() => ({ hang: true }))
    const executor = createJudgeExecutor({ judge: gemini(), concurrency: 1 })
    const controller = new AbortController()
    const running = executor.answer(req('f1'), { signal: controller.signal })
    const queued = executor.answer(req('f2'), { signal: controller.signal })
    await stub.waitForRequests(1)
    controller.abort(new Error('session deleted'))
    await expect(running).rejects.toThrow('session deleted')
    await expect(queued).rejects.toThrow('session deleted')
    expect(stub.requests).toHaveLength(1)
    // The slot was released: a later request runs.
    stub.handle(() => ({ candidates: ['after'] }))
    expect((await executor.answer(req('f3'))).samples).toEqual([{ text: 'after' }])
  })

  it('keeps a shared call alive while one of its callers is still waiting', async () => {
    stub.handle(() => ({ candidates: ['kept'], delayMs: 60 }))
    const executor = createJudgeExecutor({ judge: gemini(), concurrency: 1 })
    const leaving = new AbortController()
    const a = executor.answer(req('g'), { signal: leaving.signal })
    const b = executor.answer(req('g'))
    leaving.abort(new Error('gone'))
    await expect(a).rejects.toThrow('gone')
    expect((await b).samples).toEqual([{ text: 'kept' }])
  })
})

/** Covers: src/judge/executor.ts. */
// The executor's per-session side: slots per session, the judge deadline, and release(sessionId),
// with scripted judges where only the executor's bookkeeping is under test.
import { describe, expect, it } from 'vitest'
import type { JudgeRequest } from '../../../src/core/criterion.ts'
import { createJudgeExecutor } from '../../../src/judge/executor.ts'
import type { Judge, JudgeCallOptions } from '../../../src/judge/port.ts'

const req = (id: string, samples = 1): JudgeRequest => ({ id, model: 'm', prompt: `prompt ${id}`, samples })

/** A judge whose calls stay open until the test settles them; records what runs at once. */
function heldJudge() {
  const open = new Map<string, { settle: () => void; opts: JudgeCallOptions }>()
  let notify: (() => void) | undefined
  const judge: Judge = {
    answer(r, opts) {
      opts.admit?.()
      return new Promise((resolve) => {
        open.set(r.id, { settle: () => (open.delete(r.id), resolve({ id: r.id, via: 'held', samples: [{ text: r.id }] })), opts })
        notify?.()
      })
    },
  }
  /** Resolves once `n` calls are open. */
  const until = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (open.size >= n ? resolve() : void 0)
      notify = check
      check()
    })
  return { judge, open, until }
}

describe('createJudgeExecutor: per-session slots', () => {
  it('one session never holds more than its share; another session still gets a slot', async () => {
    const held = heldJudge()
    const executor = createJudgeExecutor({ judge: held.judge, concurrency: 4, concurrencyPerSession: 2 })
    const busy = executor.answerAll([req('a1'), req('a2'), req('a3'), req('a4')], { sessionId: 'busy' })
    const other = executor.answer(req('b1'), { sessionId: 'other' })
    await held.until(3)
    expect([...held.open.keys()].sort()).toEqual(['a1', 'a2', 'b1'])
    held.open.get('b1')?.settle()
    expect((await other).samples).toEqual([{ text: 'b1' }])
    // As busy's calls finish, its queued ones take their place, two at a time.
    held.open.get('a1')?.settle()
    await held.until(2)
    expect([...held.open.keys()].sort()).toEqual(['a2', 'a3'])
    for (const id of ['a2', 'a3']) held.open.get(id)?.settle()
    await held.until(1)
    held.open.get('a4')?.settle()
    expect((await busy).map((a) => a.id)).toEqual(['a1', 'a2', 'a3', 'a4'])
  })

  it('rejects a per-session limit below 1', () => {
    expect(() => createJudgeExecutor({ judge: heldJudge().judge, concurrency: 2, concurrencyPerSession: 0 })).toThrow(RangeError)
  })
})

describe('createJudgeExecutor: judge deadline', () => {
  it('answers with error samples when the deadline fires, frees the slot, even if the judge ignores its signal', async () => {
    let aborted: unknown
    const deaf: Judge = {
      answer: (_r, opts) => {
        opts.signal?.addEventListener('abort', () => (aborted = opts.signal?.reason))
        return new Promise(() => {}) // never settles, whatever the signal says
      },
    }
    const executor = createJudgeExecutor({ judge: deaf, concurrency: 1, deadlineMs: 50 })
    const answer = await executor.answer(req('late', 3), { sessionId: 's' })
    expect(answer).toEqual({ id: 'late', samples: Array(3).fill({ error: 'judge deadline exceeded: no answer within 50 ms' }) })
    expect((aborted as DOMException).name).toBe('TimeoutError')
    expect(executor.stats().deadlines).toBe(1)
    // The slot was freed: with concurrency 1, a second request runs (and also meets the deadline).
    expect((await executor.answer(req('next'))).samples[0]).toHaveProperty('error')
    expect(executor.stats().deadlines).toBe(2)
  })

  it('does not cache a deadline answer, so a later attempt may succeed', async () => {
    let calls = 0
    const slowThenFast: Judge = {
      answer: (r) => (++calls === 1 ? new Promise(() => {}) : Promise.resolve({ id: r.id, via: 'x', samples: [{ text: 'ok' }] })),
    }
    const executor = createJudgeExecutor({ judge: slowThenFast, concurrency: 1, deadlineMs: 30 })
    expect((await executor.answer(req('r'))).samples[0]).toHaveProperty('error')
    expect((await executor.answer(req('r'))).samples).toEqual([{ text: 'ok' }])
  })

  it("a caller abort before the deadline still rejects with the caller's reason", async () => {
    const executor = createJudgeExecutor({ judge: { answer: () => new Promise(() => {}) }, concurrency: 1, deadlineMs: 60_000 })
    const controller = new AbortController()
    const pending = executor.answer(req('gone'), { signal: controller.signal })
    controller.abort(new Error('session deleted'))
    await expect(pending).rejects.toThrow('session deleted')
  })
})

describe('createJudgeExecutor: release(sessionId)', () => {
  it('per-session state does not grow with ended sessions', async () => {
    const judge: Judge = { answer: async (r, opts) => (opts.admit?.(), { id: r.id, via: 'x', samples: [{ text: 'ok' }] }) }
    const executor = createJudgeExecutor({ judge, concurrency: 4, concurrencyPerSession: 1, budget: { perSession: 5 } })
    for (let i = 0; i < 200; i++) {
      const sessionId = `s${i}`
      await executor.answerAll([req(`${sessionId}/a`), req(`${sessionId}/b`)], { sessionId })
      expect(executor.sessionCalls(sessionId)).toBe(2)
      expect(executor.trackedSessions()).toBe(1)
      executor.release(sessionId)
      expect(executor.trackedSessions()).toBe(0)
      expect(executor.sessionCalls(sessionId)).toBe(0)
    }
  })

  it('a call still running at release counts against the detached state, not a new entry', async () => {
    const held = heldJudge()
    const executor = createJudgeExecutor({ judge: held.judge, concurrency: 2, concurrencyPerSession: 1, budget: { perSession: 1 } })
    const running = executor.answer(req('x'), { sessionId: 's' })
    await held.until(1)
    executor.release('s')
    expect(held.open.get('x')?.opts.admit?.()).toMatch(/budget exceeded/) // the detached count already holds 1
    expect(executor.trackedSessions()).toBe(0)
    held.open.get('x')?.settle()
    await running
    expect(executor.trackedSessions()).toBe(0)
  })
})

/**
 * Judge slots per tenant: all sessions of one tenant together hold at most its share of the
 * process's judge slots, so a tenant with many sessions whose judge hangs cannot delay another
 * tenant's judge (the per-session cap alone does not bound a tenant). Judges here are held open
 * by the test and settled by it: no sleeps, no deadlines involved.
 * Covers: src/judge/executor.ts.
 */
import { describe, expect, it } from 'vitest'
import type { JudgeRequest } from '../../../src/core/criterion.ts'
import { createJudgeExecutor } from '../../../src/judge/executor.ts'
import { judgeWiringFromEnv } from '../../../src/config/judge-wiring.ts'
import type { Judge } from '../../../src/judge/port.ts'

const req = (id: string): JudgeRequest => ({ id, model: 'm', prompt: `prompt ${id}`, samples: 1 })

/** A judge whose calls stay open until `settleAll`; `until(n)` resolves once n are open at once. */
function heldJudge() {
  const open = new Map<string, () => void>()
  const waiters: { n: number; resolve: () => void }[] = []
  const wake = () => {
    for (const w of [...waiters]) if (open.size >= w.n) waiters.splice(waiters.indexOf(w), 1), w.resolve()
  }
  const judge: Judge = {
    answer: (r) =>
      new Promise((resolve) => {
        open.set(r.id, () => (open.delete(r.id), resolve({ id: r.id, via: 'held', samples: [{ text: r.id }] })))
        wake()
      }),
  }
  return {
    judge,
    open,
    until: (n: number) => new Promise<void>((resolve) => (waiters.push({ n, resolve }), wake())),
    settle: (id: string) => open.get(id)!(),
    settleAll: () => [...open.values()].forEach((settle) => settle()),
  }
}

describe('judge slots per tenant', () => {
  it("one tenant's many hung sessions hold only its share; another tenant's judge call gets a slot at once", async () => {
    const held = heldJudge()
    const executor = createJudgeExecutor({ judge: held.judge, concurrency: 4, concurrencyPerSession: 2, concurrencyPerTenant: 2 })
    // globex: 5 sessions with 2 hung calls each; alone they would take every process slot.
    const hung = Array.from(
      { length: 5 },
      (_, s) => executor.answerAll([req(`g${s}-1`), req(`g${s}-2`)], { sessionId: `g${s}`, tenant: 'globex' }),
    )
    await held.until(2)
    const acme = executor.answer(req('a1'), { sessionId: 'a', tenant: 'acme' })
    await held.until(3)
    expect([...held.open.keys()].filter((id) => id.startsWith('g'))).toHaveLength(2)
    expect(held.open.has('a1')).toBe(true)
    held.settle('a1')
    expect(await acme).toMatchObject({ id: 'a1', samples: [{ text: 'a1' }] })
    expect(executor.trackedTenants()).toBe(1)

    // The hung tenant drains through its own share, and its limiter goes once nothing is left.
    while (held.open.size > 0) held.settleAll(), await new Promise((r) => setImmediate(r))
    expect((await Promise.all(hung)).flat()).toHaveLength(10)
    expect(executor.trackedTenants()).toBe(0)
  })

  it('control: without a tenant share the same load takes every process slot', async () => {
    const held = heldJudge()
    const executor = createJudgeExecutor({ judge: held.judge, concurrency: 4, concurrencyPerSession: 2 })
    const hung = Array.from(
      { length: 5 },
      (_, s) => executor.answerAll([req(`g${s}-1`), req(`g${s}-2`)], { sessionId: `g${s}`, tenant: 'globex' }),
    )
    await held.until(4)
    const acme = executor.answer(req('a1'), { sessionId: 'a', tenant: 'acme' })
    await new Promise((r) => setImmediate(r))
    expect(held.open.has('a1')).toBe(false)
    while (held.open.size > 0) held.settleAll(), await new Promise((r) => setImmediate(r))
    await Promise.all([acme, ...hung])
  })

  it('EVALSTREAM_JUDGE_CONCURRENCY_PER_TENANT is read (default 16) and a bad value stops the start', () => {
    const judge = { GEMINI_API_KEY: 'k' }
    const wired = judgeWiringFromEnv({ ...judge, EVALSTREAM_JUDGE_CONCURRENCY_PER_TENANT: '3' })
    expect(wired.ok && (wired.notes ?? []).join('\n')).toMatch(/per tenant: 3 at once/)
    const defaults = judgeWiringFromEnv(judge)
    expect(defaults.ok && (defaults.notes ?? []).join('\n')).toMatch(/per tenant: 16 at once/)
    const bad = judgeWiringFromEnv({ ...judge, EVALSTREAM_JUDGE_CONCURRENCY_PER_TENANT: '0' })
    expect(bad).toMatchObject({
      ok: false,
      error: expect.stringMatching(/EVALSTREAM_JUDGE_CONCURRENCY_PER_TENANT must be a whole number >= 1/),
    })
  })

  it('EVALSTREAM_JUDGE_DEADLINE_MS above 2^31-1 ms (which a timer would take as 1 ms) stops the start', () => {
    const bad = judgeWiringFromEnv({ GEMINI_API_KEY: 'k', EVALSTREAM_JUDGE_DEADLINE_MS: String(2 ** 31) })
    expect(bad).toMatchObject({ ok: false, error: expect.stringMatching(/EVALSTREAM_JUDGE_DEADLINE_MS must be .* 1 to 2147483647/) })
    expect(judgeWiringFromEnv({ GEMINI_API_KEY: 'k', EVALSTREAM_JUDGE_DEADLINE_MS: String(2 ** 31 - 1) }).ok).toBe(true)
  })
})

describe('judgedEngines', () => {
  it("hands each session's tenant to the judging wiring, so its judge calls count against that tenant", async () => {
    const { judgedEngines } = await import('../../../src/config/judge-wiring.ts')
    const asked: [string, string | undefined][] = []
    const create = judgedEngines((sessionId, tenant) => (asked.push([sessionId, tenant]), { noJudgeReason: 'test' }))
    create({ spec: { session_id: 's-acme', tenant: 'acme', eval_config: { criteria: {} } }, emit: () => {} } as never)
    create({ spec: { session_id: 's-open', eval_config: { criteria: {} } }, emit: () => {} } as never)
    expect(asked).toEqual([
      ['s-acme', 'acme'],
      ['s-open', undefined],
    ])
  })
})

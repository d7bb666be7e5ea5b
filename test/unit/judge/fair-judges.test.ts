/**
 * Fair judges: 8 sessions whose judge hangs do not delay a healthy session's judged result,
 * because each session holds at most its own share of the process's judge slots; the hung
 * sessions end NOT_EVALUATED with the deadline as the reason, once the judge deadline frees their
 * slots. The deadline clock is moved by hand (manual-deadlines.ts): "before the deadline" means no
 * deadline has passed yet, not a measured time. The control run shows the same load starving the
 * healthy session without a per-session limit: it is judged only after the deadlines pass.
 * Covers: src/judge/executor.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'
import { manualDeadlines } from '../../support/manual-deadlines.ts'
import { HANG, hangOnMarker, startJudgedSession, stubWiring } from './judged-sessions.ts'

const DEADLINE_MS = 2_000
const HUNG_SESSIONS = 8
let runs = 0

let stub: GeminiStub
beforeAll(async () => {
  stub = await startGeminiStub()
  hangOnMarker(stub)
})
afterAll(() => stub?.close())

/** 8 hung sessions with `turns` judge calls each, then one healthy session with one. */
function load(turns: number, env: Record<string, string>) {
  const deadlines = manualDeadlines()
  const wiring = stubWiring(stub, { EVALSTREAM_JUDGE_DEADLINE_MS: String(DEADLINE_MS), ...env }, deadlines.timer)
  const tag = ++runs
  const seenBefore = stub.requests.length
  const hung = Array.from(
    { length: HUNG_SESSIONS },
    (_, i) => startJudgedSession(wiring, `hung-${tag}-${i}`, { invocations: turns, hang: true }),
  )
  const healthy = startJudgedSession(wiring, `healthy-${tag}`, { invocations: 1 })
  // Whether any deadline had passed when the healthy session's result came.
  const healthyDone = healthy.judged[0]!.then((result) => ({ result, afterDeadline: deadlines.passed }))
  const firstHungResult = Promise.race(hung.flatMap((s) => s.judged))
  /** Resolves once `count` judge calls of this load reached the stub; says how many were healthy. */
  const calls = async (count: number) => {
    await stub.waitForRequests(seenBefore + count)
    return stub.requests.slice(seenBefore).filter((r) => !JSON.stringify(r.body).includes(HANG)).length
  }
  return { wiring, deadlines, hung, healthy, healthyDone, firstHungResult, calls }
}

describe('fair judges: hung sessions never delay a healthy one', () => {
  // 16 hanging calls against 12 process slots, at most 1 per session.
  it('a healthy session is judged while 8 sessions hang, and they end NOT_EVALUATED by the deadline', async () => {
    const turns = 2
    const { wiring, deadlines, hung, healthy, healthyDone, firstHungResult } = load(turns, {
      EVALSTREAM_JUDGE_CONCURRENCY: '12',
      EVALSTREAM_JUDGE_CONCURRENCY_PER_SESSION: '1',
    })
    const first = await Promise.race([healthyDone.then(() => 'healthy'), firstHungResult.then(() => 'hung')])
    expect(first).toBe('healthy')
    const { result, afterDeadline } = await healthyDone
    expect(result).toMatchObject({ score: 1, eval_status: 'PASSED' })
    // Judged while every hung call still held its slot: no deadline had passed.
    expect(afterDeadline).toBe(false)

    deadlines.pass()
    const ends = await Promise.all([healthy, ...hung].map((s) => s.engine.end()))
    expect(ends[0]).toMatchObject({ final_eval_status: 'PASSED' })
    const hungResults = await Promise.all(hung.flatMap((s) => s.judged))
    expect(hungResults).toHaveLength(HUNG_SESSIONS * turns)
    for (const r of hungResults) {
      expect(r).toMatchObject({ score: null, eval_status: 'NOT_EVALUATED' })
      expect(String(r.reason)).toContain(`judge deadline exceeded: no answer within ${DEADLINE_MS} ms`)
    }
    expect(wiring.value.executor?.stats()).toMatchObject({ deadlines: HUNG_SESSIONS * turns, answers: 1 + HUNG_SESSIONS * turns })
  })

  it('with the default limits (32 per process, 2 per session), 40 hanging calls leave the healthy session alone', async () => {
    const { wiring, deadlines, hung, healthy, healthyDone, firstHungResult } = load(5, {})
    expect(await Promise.race([healthyDone.then(() => 'healthy'), firstHungResult.then(() => 'hung')])).toBe('healthy')
    expect((await healthyDone).afterDeadline).toBe(false)
    deadlines.pass()
    await Promise.all([healthy, ...hung].map((s) => s.engine.end()))
    expect(wiring.value.executor?.stats().deadlines).toBe(HUNG_SESSIONS * 5)
  })

  it('control: without a per-session limit the same load does starve the healthy session', async () => {
    const { deadlines, hung, healthy, healthyDone, firstHungResult, calls } = load(2, {
      EVALSTREAM_JUDGE_CONCURRENCY: '12',
      EVALSTREAM_JUDGE_CONCURRENCY_PER_SESSION: '12',
    })
    // All 12 process slots went to hung calls; the healthy call waits in the queue behind them.
    expect(await calls(12)).toBe(0)
    deadlines.pass()
    const first = await Promise.race([healthyDone.then(() => 'healthy'), firstHungResult.then(() => 'hung')])
    expect(first).toBe('hung')
    expect((await healthyDone).afterDeadline).toBe(true)
    await Promise.all([healthy, ...hung].map((s) => s.engine.end()))
  })
})

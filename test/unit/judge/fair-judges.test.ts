/**
 * Fair judges (issue 7): 8 sessions whose judge hangs do not delay a healthy session's judged
 * result, because each session holds at most its own share of the process's judge slots; the hung
 * sessions end NOT_EVALUATED with the deadline as the reason, once the judge deadline frees their
 * slots. Everything waits on promises (results as they are emitted), never on fixed sleeps; the
 * control run shows the same load starving the healthy session without a per-session limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'
import { hangOnMarker, startJudgedSession, stubWiring } from './judged-sessions.ts'

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
  const wiring = stubWiring(stub, { EVALSTREAM_JUDGE_DEADLINE_MS: String(DEADLINE_MS), ...env })
  const tag = ++runs
  const hung = Array.from({ length: HUNG_SESSIONS }, (_, i) => startJudgedSession(wiring, `hung-${tag}-${i}`, { invocations: turns, hang: true }))
  const started = performance.now()
  const healthy = startJudgedSession(wiring, `healthy-${tag}`, { invocations: 1 })
  const healthyDone = healthy.judged[0]!.then((result) => ({ result, ms: performance.now() - started }))
  const firstHungResult = Promise.race(hung.flatMap((s) => s.judged))
  return { wiring, hung, healthy, healthyDone, firstHungResult }
}

describe('fair judges: hung sessions never delay a healthy one', () => {
  // 16 hanging calls against 12 process slots, at most 1 per session.
  it('a healthy session is judged while 8 sessions hang, and they end NOT_EVALUATED by the deadline', async () => {
    const turns = 2
    const { wiring, hung, healthy, healthyDone, firstHungResult } = load(turns, { EVALSTREAM_JUDGE_CONCURRENCY: '12', EVALSTREAM_JUDGE_CONCURRENCY_PER_SESSION: '1' })
    const first = await Promise.race([healthyDone.then(() => 'healthy'), firstHungResult.then(() => 'hung')])
    expect(first).toBe('healthy')
    const { result, ms } = await healthyDone
    expect(result).toMatchObject({ score: 1, eval_status: 'PASSED' })
    // The small bound: well inside the deadline the hung calls are held to.
    expect(ms).toBeLessThan(DEADLINE_MS / 2)

    const ends = await Promise.all([healthy, ...hung].map((s) => s.engine.end()))
    expect(ends[0]).toMatchObject({ final_eval_status: 'PASSED' })
    const hungResults = await Promise.all(hung.flatMap((s) => s.judged))
    expect(hungResults).toHaveLength(HUNG_SESSIONS * turns)
    for (const r of hungResults) {
      expect(r).toMatchObject({ score: null, eval_status: 'NOT_EVALUATED' })
      expect(String(r.reason)).toContain(`judge deadline exceeded: no answer within ${DEADLINE_MS} ms`)
    }
    expect(wiring.executor?.stats()).toMatchObject({ deadlines: HUNG_SESSIONS * turns, answers: 1 + HUNG_SESSIONS * turns })
  }, 30_000)

  it('with the default limits (32 per process, 2 per session), 40 hanging calls leave the healthy session alone', async () => {
    const { wiring, hung, healthy, healthyDone, firstHungResult } = load(5, {})
    expect(await Promise.race([healthyDone.then(() => 'healthy'), firstHungResult.then(() => 'hung')])).toBe('healthy')
    expect((await healthyDone).ms).toBeLessThan(DEADLINE_MS / 2)
    await Promise.all([healthy, ...hung].map((s) => s.engine.end()))
    expect(wiring.executor?.stats().deadlines).toBe(HUNG_SESSIONS * 5)
  }, 30_000)

  it('control: without a per-session limit the same load does starve the healthy session', async () => {
    const { hung, healthy, healthyDone, firstHungResult } = load(2, { EVALSTREAM_JUDGE_CONCURRENCY: '12', EVALSTREAM_JUDGE_CONCURRENCY_PER_SESSION: '12' })
    const first = await Promise.race([healthyDone.then(() => 'healthy'), firstHungResult.then(() => 'hung')])
    expect(first).toBe('hung')
    expect((await healthyDone).ms).toBeGreaterThanOrEqual(DEADLINE_MS * 0.9)
    await Promise.all([healthy, ...hung].map((s) => s.engine.end()))
  }, 30_000)
})

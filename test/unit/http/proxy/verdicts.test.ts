/**
 * Judged verdicts reach the proxied /run_sse client: after the agent's last frame the client's
 * stream stays open until the judges of that invocation have answered (real @google/genai SDK
 * against the loopback Gemini stub), at most EVALSTREAM_PROXY_VERDICT_WAIT_MS, measured by a
 * manual clock here, so nothing waits in real time. That is for clients that ask for results
 * inline; by default the stream ends with the agent's and the verdict goes only to the session.
 * Covers: src/http/proxy/proxy.ts, src/http/proxy/results-mode.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../../src/engine/session-engine.ts'
import type { AppDeps } from '../../../../src/http/deps.ts'
import { DEFAULT_PROXY_SETTINGS } from '../../../../src/http/proxy/settings.ts'
import { memorySessionStore } from '../../../../src/session/store.ts'
import { createApp } from '../../../../src/http/app.ts'
import { SESSION_HEADER } from '../../../../src/http/proxy/proxy.ts'
import { RESULTS_HEADER } from '../../../../src/http/proxy/results-mode.ts'
import { DEFAULT_LIMITS } from '../../../../src/ingest/index.ts'
import { createMemoryJudgeCache } from '../../../../src/judge/cache.ts'
import { createJudgeExecutor } from '../../../../src/judge/executor.ts'
import { createGeminiJudge } from '../../../../src/judge/gemini.ts'
import { type GeminiStub, startGeminiStub } from '../../../support/gemini-stub.ts'
import { MATCHING_CASE, WEATHER_SSE } from '../../../support/weather-fixtures.ts'

const VALID = JSON.stringify({ reasoning: 'same', is_the_agent_response_valid: 'valid' })
const JUDGED = { criteria: { final_response_match_v2: { threshold: 0.5, judge_model_options: { num_samples: 1 } } } }
const WAIT_MS = 5_000

let stub: GeminiStub
beforeAll(async () => {
  stub = await startGeminiStub()
})
afterAll(() => stub.close())

/** A clock the test moves: the proxy's wait resolves when the test fires it (or the wait is called off). */
function manualSleep() {
  const waits: Array<{ ms: number; signal: AbortSignal; fire(): void }> = []
  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      waits.push({ ms, signal, fire: resolve })
      signal.addEventListener('abort', () => resolve(), { once: true })
    })
  return { waits, sleep }
}

async function setup(id: string, resultsMode = 'inline') {
  const judge = createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'test-key' }, baseUrl: stub.url })
  const executor = createJudgeExecutor({ judge, concurrency: 2, cache: createMemoryJudgeCache() })
  const clock = manualSleep()
  const store = memorySessionStore()
  const deps: AppDeps = {
    store,
    createEngine: (o) =>
      createSessionEngine({ ...o, judge: (requests, signal) => executor.answerAll(requests, { sessionId: o.spec.session_id, signal }) }),
    defaultConfig: JUDGED,
    agentUrl: 'http://agent.test',
    fetch: (async () => new Response(WEATHER_SSE, { headers: { 'content-type': 'text/event-stream' } })) as typeof fetch,
    proxy: { ...DEFAULT_PROXY_SETTINGS, verdictWaitMs: WAIT_MS },
    proxySleep: clock.sleep,
    limits: DEFAULT_LIMITS,
  }
  const created = await store.create({ session_id: id, eval_config: JUDGED, eval_case: MATCHING_CASE }, deps.createEngine)
  if (!created.ok) throw new Error(created.problem.detail)
  const app = createApp(deps)
  const client = new AbortController()
  const res = await app.request('/run_sse', {
    method: 'POST',
    signal: client.signal,
    headers: { 'content-type': 'application/json', [SESSION_HEADER]: id, [RESULTS_HEADER]: resultsMode },
    body: JSON.stringify({ appName: 'weather', userId: 'u1', sessionId: 'adk-1', newMessage: MATCHING_CASE.conversation[0]!.user_content }),
  })
  let closed = false
  const text = res.text().then((t) => ((closed = true), t))
  return { text, isClosed: () => closed, clock, session: created.session, leave: () => client.abort() }
}

const judgedResults = (text: string) =>
  text
    .split(/(?<=\n\n)/)
    .filter((f) => f.startsWith('event: evalstream\n'))
    .map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)))
    .filter((r) => r.type === 'criterion.result' && r.data.metric_name === 'final_response_match_v2')

describe('proxied /run_sse and judged verdicts', () => {
  it('keeps the client stream open after the agent ends until the verdict is out, then closes it', async () => {
    let answer!: () => void
    stub.enqueue({ candidates: [VALID], after: new Promise<void>((r) => (answer = r)) })
    const before = stub.requests.length
    const { text, isClosed, clock } = await setup('verdict-in-time')
    await stub.waitForRequests(before + 1)
    // The agent's stream is over (the judge is only asked once the invocation completed), the client's is not.
    await new Promise((r) => setImmediate(r))
    expect(isClosed()).toBe(false)
    expect(clock.waits.map((w) => w.ms)).toEqual([WAIT_MS])
    answer()
    const body = await text
    expect(body.startsWith(WEATHER_SSE.slice(0, 200))).toBe(true)
    expect(judgedResults(body)).toEqual([expect.objectContaining({ data: expect.objectContaining({ eval_status: 'PASSED' }) })])
    // The verdict ended the wait: the timer was called off, the clock never fired.
    expect(clock.waits[0]!.signal.aborted).toBe(true)
    expect(body).not.toContain('stopped waiting')
  })

  it('closes after EVALSTREAM_PROXY_VERDICT_WAIT_MS with a note; the late verdict still reaches the session', async () => {
    let answer!: () => void
    stub.enqueue({ candidates: [VALID], after: new Promise<void>((r) => (answer = r)) })
    const before = stub.requests.length
    const { text, clock, session } = await setup('verdict-late')
    await stub.waitForRequests(before + 1)
    await new Promise((r) => setImmediate(r))
    expect(clock.waits).toHaveLength(1)
    clock.waits[0]!.fire()
    const body = await text
    expect(judgedResults(body)).toEqual([])
    expect(body).toContain(`: evalstream stopped waiting for judged verdicts after ${WAIT_MS} ms (EVALSTREAM_PROXY_VERDICT_WAIT_MS)`)
    const late = new Promise<unknown>((resolve) =>
      session.log.subscribe((e) => {
        if (e.type === 'criterion.result' && (e.data as { metric_name?: string }).metric_name === 'final_response_match_v2') resolve(e.data)
      })
    )
    answer()
    expect(await late).toMatchObject({ eval_status: 'PASSED' })
  })

  it('a client that leaves during the wait ends it at once: the clock never fires', async () => {
    let answer!: () => void
    stub.enqueue({ candidates: [VALID], after: new Promise<void>((r) => (answer = r)) })
    const before = stub.requests.length
    const { text, clock, leave, isClosed } = await setup('verdict-client-left')
    await stub.waitForRequests(before + 1)
    await new Promise((r) => setImmediate(r))
    expect([clock.waits.length, isClosed()]).toEqual([1, false])
    leave()
    const body = await text
    expect(clock.waits[0]!.signal.aborted).toBe(true)
    expect(judgedResults(body)).toEqual([])
    answer()
  })

  it('without results inline, ends with the agent (no wait); the verdict still reaches the session', async () => {
    let answer!: () => void
    stub.enqueue({ candidates: [VALID], after: new Promise<void>((r) => (answer = r)) })
    const before = stub.requests.length
    const { text, clock, session } = await setup('verdict-not-inline', 'none')
    // The client has its whole stream, exactly the agent's, while the judge has not answered yet.
    expect(await text).toBe(WEATHER_SSE)
    await stub.waitForRequests(before + 1)
    expect(clock.waits).toEqual([])
    const late = new Promise<unknown>((resolve) =>
      session.log.subscribe((e) => {
        if (e.type === 'criterion.result' && (e.data as { metric_name?: string }).metric_name === 'final_response_match_v2') resolve(e.data)
      })
    )
    answer()
    expect(await late).toMatchObject({ eval_status: 'PASSED' })
  })
})

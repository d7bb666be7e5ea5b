/**
 * Proxy mode when the agent misbehaves, in process (`app.request()`) against the agent stub on a
 * real socket: timeouts, a stream that breaks off, body limits and session ids, with results
 * asked for inline (so the client's stream shows what the session recorded). The same app runs
 * on every runtime; the API suite (api-suite-proxy.ts) repeats what needs no special settings.
 * Covers: src/http/proxy/proxy.ts, src/http/proxy/forward.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../../src/engine/session-engine.ts'
import type { AppDeps } from '../../../../src/http/deps.ts'
import { DEFAULT_LIMITS } from '../../../../src/ingest/index.ts'
import { proxySettingsFromEnv } from '../../../../src/config/proxy.ts'
import { DEFAULT_PROXY_SETTINGS, type ProxySettings } from '../../../../src/http/proxy/settings.ts'
import { memorySessionStore } from '../../../../src/session/store.ts'
import { createApp } from '../../../../src/http/app.ts'
import { RESULTS_HEADER } from '../../../../src/http/proxy/results-mode.ts'
import { type AgentStub, BREAK_AFTER, SCENARIO_HEADER, STALL_AFTER, startAgentStub } from '../../../support/agent-stub.ts'
import { CONFIG, EFFICIENCY_RESULTS, WEATHER_SSE } from '../../../support/weather-fixtures.ts'

const frames = WEATHER_SSE.split(/(?<=\n\n)/)
const framesOf = (text: string) => text.split(/(?<=\n\n)/).filter((f) => f !== '')
const isOurs = (frame: string) => frame.startsWith('event: evalstream\n')
const ours = (text: string) => framesOf(text).filter(isOurs).map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)))

let agent: AgentStub
beforeAll(async () => {
  agent = await startAgentStub()
})
afterAll(() => agent.close())

function setup(settings: Partial<ProxySettings> = {}, agentUrl = agent.url, maxRequestBytes = DEFAULT_LIMITS.maxRequestBytes) {
  const store = memorySessionStore()
  const deps: AppDeps = {
    store,
    createEngine: (o) => createSessionEngine(o),
    defaultConfig: CONFIG,
    agentUrl,
    proxy: { ...DEFAULT_PROXY_SETTINGS, ...settings },
    limits: { ...DEFAULT_LIMITS, maxRequestBytes },
  }
  const app = createApp(deps)
  const runSse = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    app.request('/run_sse', {
      method: 'POST',
      headers: { 'content-type': 'application/json', [RESULTS_HEADER]: 'inline', ...headers },
      body: JSON.stringify(body),
    })
  const session = (id: string) => store.get(id, deps.createEngine)
  return { app, runSse, session }
}

let n = 0
const adkId = () => `adk-fail-${++n}`
const run = (sessionId: string) => ({
  appName: 'weather_agent',
  userId: 'u1',
  sessionId,
  newMessage: { role: 'user', parts: [{ text: 'hi' }] },
})

describe('proxy timeouts', () => {
  it('answers 504 problem+json naming the agent and the timeout when the agent sends no response', async () => {
    const { runSse, app } = setup({ connectTimeoutMs: 150 })
    const started = performance.now()
    const res = await runSse(run(adkId()), { [SCENARIO_HEADER]: 'hang' })
    expect(res.status).toBe(504)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    const body = (await res.json()) as any
    expect(body).toMatchObject({ status: 504, title: 'Agent timed out', type: expect.stringContaining('gateway-timeout') })
    expect(body.detail).toContain(agent.url)
    expect(body.detail).toContain('150 ms (EVALSTREAM_AGENT_CONNECT_TIMEOUT_MS)')
    expect(performance.now() - started).toBeLessThan(5_000)
    // Other ADK routes get the same deadline.
    const other = await app.request('/hang')
    expect([other.status, ((await other.json()) as any).title]).toEqual([504, 'Agent timed out'])
  })

  it('answers 502 with the cause, not just "fetch failed", when the agent cannot be reached', async () => {
    const gone = await startAgentStub()
    await gone.close()
    const { runSse } = setup({}, gone.url)
    const res = await runSse(run(adkId()))
    const body = (await res.json()) as any
    expect([res.status, body.title]).toEqual([502, 'Agent unreachable'])
    expect(body.detail).toContain(gone.url)
    expect(body.detail).toMatch(/ECONNREFUSED/)
  })

  it('cuts an agent that goes silent mid-stream, still delivers the results, and records the failure as an error result', async () => {
    const { runSse, session } = setup({ idleTimeoutMs: 200 })
    const id = adkId()
    const res = await runSse(run(id), { [SCENARIO_HEADER]: 'stall' })
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(framesOf(text).filter((f) => !isOurs(f))).toEqual(frames.slice(0, STALL_AFTER))
    const results = ours(text)
    const error = results.find((r) => r.type === 'error')
    expect(error.data.message).toContain(`the agent at ${agent.url} sent nothing for 200 ms (EVALSTREAM_AGENT_IDLE_TIMEOUT_MS)`)
    expect(error.data.index).toBe(STALL_AFTER)
    // The invocation was completed after the error: its criterion results came too.
    expect(results.map((r) => r.type).slice(-7)).toEqual(['error', 'criterion.result', 'criterion.result', ...EFFICIENCY_RESULTS])
    const logged = (await session(id))!.log.readAfter(0)
    expect(logged.map((e) => e.type)).toEqual(results.map((r) => r.type))
  })

  it('reads the settings from the environment, refusing values that are not positive whole numbers', () => {
    expect(proxySettingsFromEnv({})).toEqual({ ok: true, value: DEFAULT_PROXY_SETTINGS })
    const set = proxySettingsFromEnv({
      EVALSTREAM_AGENT_CONNECT_TIMEOUT_MS: '1000',
      EVALSTREAM_AGENT_IDLE_TIMEOUT_MS: '2000',
    })
    expect(set).toEqual({
      ok: true,
      value: { connectTimeoutMs: 1000, idleTimeoutMs: 2000, verdictWaitMs: DEFAULT_PROXY_SETTINGS.verdictWaitMs },
    })
    for (const bad of ['0', '-5', '1.5', 'soon', '1e3']) {
      expect(proxySettingsFromEnv({ EVALSTREAM_AGENT_IDLE_TIMEOUT_MS: bad })).toEqual({
        ok: false,
        error: expect.stringContaining('EVALSTREAM_AGENT_IDLE_TIMEOUT_MS'),
      })
    }
  })
})

describe('proxy: an agent that breaks off', () => {
  it('passes the whole frames on, drops the torn one, sends the results and an error frame, and ends the stream cleanly', async () => {
    const { runSse, session } = setup()
    const id = adkId()
    const res = await runSse(run(id), { [SCENARIO_HEADER]: 'break' })
    const text = await res.text()
    expect(framesOf(text).filter((f) => !isOurs(f))).toEqual(frames.slice(0, BREAK_AFTER))
    const results = ours(text)
    expect(results.filter((r) => r.type === 'criterion.result')).toHaveLength(2 + EFFICIENCY_RESULTS.length)
    const error = results.find((r) => r.type === 'error')
    expect(error.data).toMatchObject({
      index: BREAK_AFTER,
      message: expect.stringContaining(`the agent at ${agent.url} broke off its response`),
    })
    const logged = (await session(id))!.log.readAfter(0)
    expect(logged.filter((e) => e.type === 'error')).toHaveLength(1)
  })
})

describe('proxy: request bodies and session ids', () => {
  it('refuses a /run_sse body past the limit with 413, declared or streamed', async () => {
    const { app, runSse } = setup({}, agent.url, 100)
    const big = { ...run(adkId()), padding: 'x'.repeat(200) }
    const declared = await runSse(big)
    const body = (await declared.json()) as any
    expect([declared.status, body.title]).toEqual([413, 'Request body too large'])
    expect(body.detail).toBe('the body is more than 100 bytes (EVALSTREAM_MAX_REQUEST_BYTES=100)')
    const bytes = new TextEncoder().encode(JSON.stringify(big))
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 50) controller.enqueue(bytes.slice(i, i + 50))
        controller.close()
      },
    })
    const res = await app.request('/run_sse', { method: 'POST', body: streamed, duplex: 'half' } as RequestInit)
    expect(res.status).toBe(413)
    // Under the limit it goes through.
    expect((await setup({}, agent.url, 1000).runSse(run(adkId()))).status).toBe(200)
  })

  it('refuses an invalid X-Evalstream-Session with 400, and passes a run with an invalid ADK session id through unscored', async () => {
    const { runSse, session } = setup()
    for (const bad of ['a/b', '../x', 'x'.repeat(5_000)]) {
      const named = await runSse(run('fine'), { 'x-evalstream-session': bad })
      expect([named.status, ((await named.json()) as any).title]).toEqual([400, 'Invalid session id'])
      const before = agent.requests.length
      const passed = await runSse(run(bad))
      expect(passed.status).toBe(200)
      expect(passed.headers.get('x-evalstream-note')).toContain('not scored')
      expect(passed.headers.get('x-evalstream-session')).toBeNull()
      const text = await passed.text()
      expect(text).toBe(WEATHER_SSE)
      expect(agent.requests.length).toBe(before + 1)
      expect(await session(bad)).toBeUndefined()
    }
  })

  it("keeps the OTLP monitor's otlp- sessions out of the proxy: named is 400, an ADK id passes through unscored", async () => {
    const { runSse, session } = setup()
    const named = await runSse(run('fine'), { 'x-evalstream-session': 'otlp-conv' })
    expect(named.status).toBe(400)
    expect(((await named.json()) as any).detail).toMatch(/'otlp-' \(after any '<tenant>:'\) are reserved/)
    const passed = await runSse(run('otlp-conv'))
    expect(passed.status).toBe(200)
    expect(passed.headers.get('x-evalstream-note')).toContain("OTLP monitor's namespace; not scored")
    expect(await passed.text()).toBe(WEATHER_SSE)
    expect(await session('otlp-conv')).toBeUndefined()
  })
})

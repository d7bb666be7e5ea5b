/**
 * GET /metrics in process: a judged session (the real @google/genai SDK against the loopback
 * Gemini stub) is scored, then the exposition is scraped, parsed strictly and its counts checked
 * against what happened. Also: who may scrape, refusals, evictions, and that no session id
 * becomes a label.
 * Covers: src/http/metrics-route.ts, src/monitor/prometheus.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv } from '../../../src/config/setup.ts'
import { SCENARIO_HEADER, startAgentStub } from '../../support/agent-stub.ts'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { DIVERGING_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { parseExposition } from '../../support/metrics-exposition.ts'

const VALID = JSON.stringify({ reasoning: 'same facts', is_the_agent_response_valid: 'valid' })
const CONFIG = {
  criteria: { tool_trajectory_avg_score: 1, final_response_match_v2: { threshold: 0.5, judge_model_options: { num_samples: 1 } } },
}
const METRICS_TOKEN = 'm'.repeat(32)
const TENANT_TOKEN = 't'.repeat(32)

let stub: GeminiStub
beforeAll(async () => {
  stub = await startGeminiStub()
  stub.handle(() => ({ candidates: [VALID], usage: { prompt: 120, output: 30 } }))
})
afterAll(() => stub?.close())

function appWith(env: Record<string, string> = {}) {
  const judge = { GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: stub.url }
  const setup = depsFromEnv(
    { ...NO_JUDGE_ENV, ...judge, ...env },
    { store: (limits, feed) => memorySessionStore({ limits, feed, sweeper: 'manual' }), metrics: true },
  )
  if (!setup.ok) throw new Error(setup.error)
  return createApp(setup.deps)
}

const post = (app: ReturnType<typeof createApp>, path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

async function scrape(app: ReturnType<typeof createApp>, headers: Record<string, string> = {}) {
  const res = await app.request('/metrics', { headers })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
  const text = await res.text()
  return { text, metrics: parseExposition(text) }
}

describe('GET /metrics', () => {
  it('counts a judged session: events, results by criterion and status, judge calls, tokens, latency, sessions, requests', async () => {
    const app = appWith()
    const created =
      (await (await post(app, '/v1/sessions', { session_id: 'metrics-one', eval_config: CONFIG, eval_case: DIVERGING_CASE })).json()) as any
    const upload = await post(app, `/v1/sessions/${created.session_id}/events`, [...WEATHER_EVENTS, { content: 7 }])
    expect(upload.status).toBe(202)
    const before = stub.requests.length
    expect((await app.request(`/v1/sessions/metrics-one/end`, { method: 'POST' })).status).toBe(200)
    const judgeCalls = stub.requests.length
    expect(judgeCalls).toBeGreaterThan(0)

    const { text, metrics: m } = await scrape(app)
    expect(m.value('evalstream_events_ingested_total', { source: 'upload' })).toBe(WEATHER_EVENTS.length)
    expect(m.value('evalstream_events_rejected_total', { source: 'upload', reason: 'invalid_event' })).toBe(1)
    // DIVERGING_CASE expects only get_time: the trajectory fails; the judge says the answer is valid.
    expect(m.value('evalstream_criterion_results_total', { criterion: 'tool_trajectory_avg_score', status: 'FAILED' })).toBe(1)
    expect(m.value('evalstream_criterion_results_total', { criterion: 'final_response_match_v2', status: 'PASSED' })).toBe(1)
    expect(m.value('evalstream_criterion_score_count', { criterion: 'final_response_match_v2' })).toBe(1)
    expect(m.value('evalstream_criterion_score_bucket', { criterion: 'tool_trajectory_avg_score', le: '0' })).toBe(1)
    expect(m.value('evalstream_case_results_total', { status: 'FAILED' })).toBe(1)
    expect(m.value('evalstream_judge_calls_total', { outcome: 'answered' })).toBe(judgeCalls)
    expect(m.value('evalstream_judge_model_calls_total')).toBe(judgeCalls)
    expect(m.value('evalstream_judge_tokens_total', { kind: 'prompt' })).toBe(120 * judgeCalls)
    expect(m.value('evalstream_judge_tokens_total', { kind: 'output' })).toBe(30 * judgeCalls)
    expect(m.value('evalstream_judge_call_duration_seconds_count', { outcome: 'answered' })).toBe(judgeCalls)
    expect(m.value('evalstream_sessions', { state: 'ended' })).toBe(1)
    expect(m.value('evalstream_sessions', { state: 'open' })).toBe(0)
    expect(m.value('evalstream_http_requests_total', { method: 'POST', route: '/v1/sessions', status: '201' })).toBe(1)
    expect(m.value('evalstream_http_requests_total', { method: 'POST', route: '/v1/sessions/:id/events', status: '202' })).toBe(1)
    expect(m.types.get('evalstream_judge_call_duration_seconds')).toBe('histogram')
    // Bounded labels: no session id anywhere.
    expect(text).not.toContain('metrics-one')
    expect(before).toBeLessThanOrEqual(judgeCalls)
  })

  it('counts a result once however often it is streamed, and refused uploads and unknown routes by reason and pattern', async () => {
    const app = appWith()
    await post(app, '/v1/sessions', {
      session_id: 'metrics-two',
      eval_config: { criteria: { tool_trajectory_avg_score: 1 } },
      eval_case: DIVERGING_CASE,
    })
    await post(app, '/v1/sessions/metrics-two/events', WEATHER_EVENTS)
    for (let i = 0; i < 2; i++) await (await app.request('/v1/sessions/metrics-two/results?last_event_id=0')).body?.cancel()
    const wrongType = await app.request('/v1/sessions/metrics-two/events', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    })
    expect(wrongType.status).toBe(415)
    await app.request('/v1/sessions/metrics-two/end', { method: 'POST' })
    expect((await post(app, '/v1/sessions/metrics-two/events', WEATHER_EVENTS)).status).toBe(409)
    expect((await app.request('/no/such/route/abc123')).status).toBe(404)
    const { text, metrics: m } = await scrape(app)
    expect(m.value('evalstream_criterion_results_total', { criterion: 'tool_trajectory_avg_score', status: 'FAILED' })).toBe(1)
    expect(m.value('evalstream_event_uploads_refused_total', { reason: 'unsupported_format' })).toBe(1)
    expect(m.value('evalstream_event_uploads_refused_total', { reason: 'session_ended' })).toBe(1)
    expect(m.value('evalstream_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1)
    expect(text).not.toContain('abc123')
  })

  it('counts events scored through the proxy, and an agent that breaks off', async () => {
    const agent = await startAgentStub()
    try {
      const app = appWith({ AGENT_URL: agent.url, EVALSTREAM_AGENT_IDLE_TIMEOUT_MS: '2000' })
      const run = (sessionId: string, headers: Record<string, string> = {}) =>
        post(app, '/run_sse', {
          appName: 'weather',
          userId: 'u',
          sessionId,
          newMessage: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        }, headers)
      await (await run('proxy-ok')).text()
      await (await run('proxy-broken', { [SCENARIO_HEADER]: 'break' })).text()
      const { metrics: m } = await scrape(app)
      // The recorded run has 5 frames, plus the user's turn from newMessage; the broken one sent 3 whole frames.
      expect(m.value('evalstream_events_ingested_total', { source: 'proxy' })).toBe(6 + 4)
      expect(m.value('evalstream_events_rejected_total', { source: 'proxy', reason: 'agent_failure' })).toBe(1)
      expect(m.value('evalstream_http_requests_total', { method: 'POST', route: '/run_sse', status: '200' })).toBe(2)
    } finally {
      await agent.close()
    }
  })

  it('counts evictions by reason and open sessions', async () => {
    const app = appWith({ EVALSTREAM_MAX_SESSIONS: '1' })
    await post(app, '/v1/sessions', { session_id: 'evict-a', eval_config: CONFIG })
    await post(app, '/v1/sessions', { session_id: 'evict-b', eval_config: CONFIG })
    const { metrics: m } = await scrape(app)
    expect(m.value('evalstream_sessions_evicted_total', { reason: 'capacity' })).toBe(1)
    expect(m.value('evalstream_sessions_evicted_total', { reason: 'idle' })).toBe(0)
    expect(m.value('evalstream_sessions_evicted_total', { reason: 'memory' })).toBe(0)
    expect(m.value('evalstream_sessions', { state: 'open' })).toBe(1)
    // One open session's overhead (64 KiB) plus nothing else yet.
    expect(m.value('evalstream_session_bytes')).toBe(64 * 1024)
    expect(m.types.get('evalstream_sessions_evicted_total')).toBe('counter')
  })

  it('with EVALSTREAM_METRICS_TOKEN answers only that token; with tenant tokens alone it is refused', async () => {
    const app = appWith({ EVALSTREAM_METRICS_TOKEN: METRICS_TOKEN, EVALSTREAM_TOKENS: `acme:${TENANT_TOKEN}` })
    const bare = await app.request('/metrics')
    expect(bare.status).toBe(401)
    expect(bare.headers.get('content-type')).toBe('application/problem+json')
    expect((await app.request('/metrics', { headers: { authorization: `Bearer ${TENANT_TOKEN}` } })).status).toBe(401)
    await scrape(app, { authorization: `Bearer ${METRICS_TOKEN}` })
    // The metrics token opens nothing else.
    expect((await app.request('/v1/sessions/x', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(401)

    const tenantsOnly = appWith({ EVALSTREAM_TOKENS: `acme:${TENANT_TOKEN}` })
    const refused = await tenantsOnly.request('/metrics', { headers: { authorization: `Bearer ${TENANT_TOKEN}` } })
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as any).detail).toContain('EVALSTREAM_METRICS_TOKEN')
  })

  it('a host that does not count (Workers) answers 404 with the reason; a token with whitespace stops the start', async () => {
    const setup = depsFromEnv(NO_JUDGE_ENV, { store: memorySessionStore({ sweeper: 'manual' }) })
    if (!setup.ok) throw new Error(setup.error)
    const res = await createApp(setup.deps).request('/metrics')
    expect(res.status).toBe(404)
    expect(((await res.json()) as any).detail).toContain('Workers')
    const bad = depsFromEnv({ EVALSTREAM_METRICS_TOKEN: 'two words' }, { store: memorySessionStore({ sweeper: 'manual' }), metrics: true })
    expect(bad).toEqual({ ok: false, error: 'EVALSTREAM_METRICS_TOKEN must be one token without whitespace' })
  })
})

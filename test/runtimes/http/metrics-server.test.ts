/**
 * /metrics through the real server processes: `node src/adapter/node/server.ts` and the Deno
 * adapter under `deno run`, each with the judge pointed at the loopback Gemini stub and
 * EVALSTREAM_METRICS_TOKEN set. A session is scored over HTTP, then the scrape is parsed and its
 * counts checked; /openapi.json is served by the same process.
 * Covers: src/http/metrics-route.ts, src/monitor/prometheus.ts, src/adapter/node/server.ts, src/adapter/deno/server.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'
import { type ServerProcess, spawnServer } from '../../support/server-process.ts'
import { DIVERGING_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { parseExposition } from '../../support/metrics-exposition.ts'

const VALID = JSON.stringify({ reasoning: 'same facts', is_the_agent_response_valid: 'valid' })
const CONFIG = {
  criteria: { tool_trajectory_avg_score: 1, final_response_match_v2: { threshold: 0.5, judge_model_options: { num_samples: 1 } } },
}
const TOKEN = 'x'.repeat(40)

describe.each(['node', 'deno'] as const)('GET /metrics from the %s server process', (runtime) => {
  let stub: GeminiStub
  let server: ServerProcess
  beforeAll(async () => {
    stub = await startGeminiStub()
    stub.handle(() => ({ candidates: [VALID], usage: { prompt: 50, output: 7 } }))
    server = await spawnServer(runtime, { env: { GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: stub.url, EVALSTREAM_METRICS_TOKEN: TOKEN } })
  })
  afterAll(async () => {
    await server?.stop()
    await stub?.close()
  })

  it('counts a scored session and serves the exposition to the metrics token only', async () => {
    const url = (path: string) => `${server.baseUrl}${path}`
    const json = { 'content-type': 'application/json' }
    const created = await fetch(url('/v1/sessions'), {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ eval_config: CONFIG, eval_case: DIVERGING_CASE }),
    })
    expect(created.status).toBe(201)
    const id = ((await created.json()) as { session_id: string }).session_id
    const upload = await fetch(url(`/v1/sessions/${id}/events`), {
      method: 'POST',
      headers: json,
      body: JSON.stringify([...WEATHER_EVENTS, { content: 7 }]),
    })
    expect(upload.status).toBe(202)
    expect((await fetch(url(`/v1/sessions/${id}/end`), { method: 'POST' })).status).toBe(200)
    const judgeCalls = stub.requests.filter((r) => r.kind === 'generateContent').length
    expect(judgeCalls).toBeGreaterThan(0)

    expect((await fetch(url('/metrics'))).status).toBe(401)
    const res = await fetch(url('/metrics'), { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const text = await res.text()
    const m = parseExposition(text)
    expect(m.value('evalstream_events_ingested_total', { source: 'upload' })).toBe(WEATHER_EVENTS.length)
    expect(m.value('evalstream_events_rejected_total', { source: 'upload', reason: 'invalid_event' })).toBe(1)
    expect(m.value('evalstream_criterion_results_total', { criterion: 'tool_trajectory_avg_score', status: 'FAILED' })).toBe(1)
    expect(m.value('evalstream_criterion_results_total', { criterion: 'final_response_match_v2', status: 'PASSED' })).toBe(1)
    expect(m.value('evalstream_case_results_total', { status: 'FAILED' })).toBe(1)
    expect(m.value('evalstream_judge_calls_total', { outcome: 'answered' })).toBe(judgeCalls)
    expect(m.value('evalstream_judge_tokens_total', { kind: 'prompt' })).toBe(50 * judgeCalls)
    expect(m.value('evalstream_judge_call_duration_seconds_count', { outcome: 'answered' })).toBe(judgeCalls)
    expect(m.value('evalstream_sessions', { state: 'ended' })).toBe(1)
    expect(m.value('evalstream_http_requests_total', { method: 'POST', route: '/v1/sessions/:id/end', status: '200' })).toBe(1)
    expect(m.value('evalstream_http_requests_total', { method: 'GET', route: '/metrics', status: '401' })).toBe(1)
    expect(text).not.toContain(id)

    const doc = await fetch(url('/openapi.json'))
    expect(doc.status).toBe(200)
    expect(((await doc.json()) as { openapi: string }).openapi).toBe('3.1.0')
  })
})

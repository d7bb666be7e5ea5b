/**
 * POST /v1/runs and its SSE results, through the Hono app (app.request), against the loopback
 * ADK stand-in as AGENT_URL.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { createApp } from '../../../src/http/app.ts'
import { DEFAULT_LIMITS } from '../../../src/ingest/index.ts'
import { depsFromEnv, type Env } from '../../../src/config/setup.ts'
import { ACME_TOKEN, GLOBEX_TOKEN, TOKENS_ENV } from '../../support/auth-suite.ts'
import { CONFIG, FINAL_TEXT } from '../../support/weather-fixtures.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { startStubAgent, type StubAgent } from '../../support/stub-adk-server.ts'

const TOOLS = [
  { name: 'get_weather', args: { city: 'Paris' } },
  { name: 'get_time', args: { city: 'Paris' } },
]
const caseOf = (id: string, text: string) => ({
  eval_id: id,
  conversation: [
    {
      invocation_id: `x-${id}`,
      user_content: { role: 'user', parts: [{ text }] },
      final_response: { role: 'model', parts: [{ text: FINAL_TEXT }] },
      intermediate_data: { tool_uses: TOOLS, intermediate_responses: [] },
    },
  ],
})
const EVAL_SET = { eval_set_id: 'http_set', eval_cases: [caseOf('ok', 'Paris?'), caseOf('broken', 'Paris? [500]')] }

function depsOf(env: Env) {
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...env }, { store: memorySessionStore() })
  if (!setup.ok) throw new Error(setup.error)
  return setup.deps
}

type Frame = { id?: string; event?: string; data: any }
let stub: StubAgent
let app: ReturnType<typeof createApp>
beforeAll(async () => {
  stub = await startStubAgent()
  app = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o), agentUrl: stub.url })
})
afterAll(() => stub?.close())

const post = (path: string, body: unknown) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

async function frames(response: Response): Promise<Frame[]> {
  const out: Frame[] = []
  const events = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
  for await (const m of events) out.push({ id: m.id, event: m.event, data: JSON.parse(m.data) })
  return out
}

describe('/v1/runs', () => {
  it('runs an eval set against AGENT_URL and streams progress, results and the EvalSetResult', async () => {
    const started = await post('/v1/runs', { eval_set: EVAL_SET, eval_config: CONFIG, app_name: 'weather_agent', parallel: 2 })
    expect(started.status).toBe(202)
    const { run_id, urls } = (await started.json()) as { run_id: string; urls: { results: string } }
    // Relative: the request's Host header never goes into a URL we hand out.
    expect(urls.results).toBe(`/v1/runs/${run_id}/results`)
    const all = await frames(await app.request(`/v1/runs/${run_id}/results`))
    const types = all.map((f) => f.event)
    expect(types[0]).toBe('run.started')
    expect(types.at(-1)).toBe('run.result')
    expect(all.map((f) => Number(f.id))).toEqual(all.map((_, i) => i + 1))
    expect(all[0]!.data).toEqual({ run_id, cases: 2, units: 2, invocations: 2 })
    const done = all.filter((f) => f.event === 'case.done').map((f) => f.data)
    expect(done).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ eval_id: 'ok', status: 'PASSED' }),
        expect.objectContaining({ eval_id: 'broken', status: 'NOT_EVALUATED', reason: expect.stringContaining('answered 500') }),
      ]),
    )
    const scored = all.filter((f) => f.event === 'criterion.result').map((f) => [f.data.eval_id, f.data.metric_name, f.data.eval_status])
    expect(scored).toEqual([
      ['ok', 'tool_trajectory_avg_score', 'PASSED'],
      ['ok', 'response_match_score', 'PASSED'],
      ['ok', 'tool_call_count_v1', 'INFORMATIONAL'],
      ['ok', 'inference_call_count_v1', 'INFORMATIONAL'],
      ['ok', 'token_usage_v1', 'INFORMATIONAL'],
      ['ok', 'invocation_duration_v1', 'INFORMATIONAL'],
    ])
    const result = all.at(-1)!.data
    expect(result).toMatchObject({ run_id, passed: false, totals: { cases: 2, PASSED: 1, NOT_EVALUATED: 1 } })
    expect(result.eval_set_results[0].eval_case_results.map((c: any) => [c.eval_id, c.final_eval_status])).toEqual([
      ['ok', 1],
      ['broken', 3],
    ])

    // Resuming after an event gives exactly the rest; the snapshot says the run is over.
    const resumed = await frames(await app.request(`/v1/runs/${run_id}/results`, { headers: { 'last-event-id': '3' } }))
    expect(resumed.map((f) => f.id)).toEqual(all.slice(3).map((f) => f.id))
    expect(await (await app.request(`/v1/runs/${run_id}`)).json()).toMatchObject({
      run_id,
      finished: true,
      cases_done: 2,
      not_evaluated: 1,
    })
    // Listed with its app and each case as it ended (with the agent's ADK session it ran in).
    const { runs } = (await (await app.request('/v1/runs')).json()) as { runs: any[] }
    const listed = runs.find((r) => r.run_id === run_id)
    expect(listed).toMatchObject({ app_name: 'weather_agent', finished: true })
    expect(Date.parse(listed.started_at)).not.toBeNaN()
    const cases = [...listed.cases].sort((a: any, b: any) => a.eval_id.localeCompare(b.eval_id))
    expect(cases).toEqual([
      {
        eval_set_id: 'http_set',
        eval_id: 'broken',
        run: expect.any(Number),
        status: 'NOT_EVALUATED',
        reason: expect.stringContaining('answered 500'),
        ...(cases[0].session_id ? { session_id: expect.any(String) } : {}),
      },
      { eval_set_id: 'http_set', eval_id: 'ok', run: expect.any(Number), status: 'PASSED', session_id: expect.any(String) },
    ])
  })

  it('case_ids pick cases', async () => {
    const started = await post('/v1/runs', { eval_set: EVAL_SET, eval_config: CONFIG, app_name: 'weather_agent', case_ids: ['ok'] })
    const { run_id } = (await started.json()) as { run_id: string }
    const result = (await frames(await app.request(`/v1/runs/${run_id}/results`))).at(-1)!.data
    expect(result).toMatchObject({ passed: true, totals: { cases: 1, PASSED: 1 } })
  })

  it('bad requests are problems naming what is wrong, and start nothing', async () => {
    const before = stub.sessions.length
    const detail = async (r: Response | Promise<Response>) => {
      const res = await r
      return [res.status, ((await res.json()) as { detail: string }).detail]
    }
    expect(await detail(post('/v1/runs', { eval_set: EVAL_SET }))).toEqual([400, 'app_name (the agent app to run, a string) is required'])
    expect(await detail(post('/v1/runs', { eval_set: EVAL_SET, app_name: 'a', agent_url: 'http://169.254.169.254/' }))).toEqual([
      403,
      expect.stringContaining("agent_url must be this deployment's AGENT_URL"),
    ])
    const [status, text] = await detail(post('/v1/runs', { eval_set: { eval_set_id: 's', eval_cases: [{ eval_id: 1 }] }, app_name: 'a' }))
    expect(status).toBe(422)
    expect(text).toContain('eval_set')
    expect(await detail(post('/v1/runs', { eval_set: EVAL_SET, app_name: 'a', case_ids: ['zzz'] }))).toEqual([
      422,
      "eval_set: no eval case 'zzz' (cases: ok, broken)",
    ])
    expect(await detail(post('/v1/runs', { eval_set: EVAL_SET, app_name: 'a', parallel: 0 }))).toEqual([
      422,
      'parallel must be a whole number from 1 to 64, not 0',
    ])
    expect(await detail(app.request('/v1/runs/nope/results'))).toEqual([404, "no run with id 'nope'; start one with POST /v1/runs"])
    expect(stub.sessions.length).toBe(before)
  })

  it('reads the body as a session create does: JSON type, byte limit, depth bound', async () => {
    const limited = createApp({
      store: memorySessionStore(),
      createEngine: (o) => createSessionEngine(o),
      agentUrl: stub.url,
      limits: { ...DEFAULT_LIMITS, maxRequestBytes: 2_000, maxJsonDepth: 20 },
    })
    const send = (body: string, type = 'application/json') =>
      limited.request('/v1/runs', { method: 'POST', headers: { 'content-type': type }, body })
    expect((await send(JSON.stringify({ eval_set: EVAL_SET, app_name: 'a' }), 'text/plain')).status).toBe(415)
    const big = await send(JSON.stringify({ eval_set: EVAL_SET, app_name: 'a', pad: 'x'.repeat(3_000) }))
    expect([big.status, ((await big.json()) as any).limit]).toEqual([413, { name: 'EVALSTREAM_MAX_REQUEST_BYTES', value: 2_000 }])
    const deep = await send(JSON.stringify({ eval_set: EVAL_SET, app_name: 'a', x: JSON.parse('['.repeat(30) + ']'.repeat(30)) }))
    expect([deep.status, ((await deep.json()) as any).path]).toEqual([422, `$.x${'[0]'.repeat(19)}`])
  })

  it('a run belongs to the tenant that started it', async () => {
    const tenants = createApp(depsOf({ AGENT_URL: stub.url, EVALSTREAM_TOKENS: TOKENS_ENV }))
    const as = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' })
    const started = await tenants.request('/v1/runs', {
      method: 'POST',
      headers: as(ACME_TOKEN),
      body: JSON.stringify({ eval_set: EVAL_SET, eval_config: CONFIG, app_name: 'weather_agent', case_ids: ['ok'] }),
    })
    const { run_id } = (await started.json()) as { run_id: string }
    expect((await tenants.request(`/v1/runs/${run_id}`, { headers: as(GLOBEX_TOKEN) })).status).toBe(404)
    expect((await tenants.request(`/v1/runs/${run_id}/cancel`, { method: 'POST', headers: as(GLOBEX_TOKEN) })).status).toBe(404)
    const mine = await frames(await tenants.request(`/v1/runs/${run_id}/results`, { headers: as(ACME_TOKEN) }))
    expect(mine.at(-1)).toMatchObject({ event: 'run.result', data: { passed: true } })
    // The list too is per tenant, newest first.
    const list = async (token: string) =>
      ((await (await tenants.request('/v1/runs', { headers: as(token) })).json()) as { runs: any[] }).runs
    expect((await list(ACME_TOKEN)).map((r) => r.run_id)).toEqual([run_id])
    expect(await list(GLOBEX_TOKEN)).toEqual([])
  })

  it('without AGENT_URL there is nothing to run against', async () => {
    const bare = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o) })
    const res = await bare.request('/v1/runs', { method: 'POST', body: JSON.stringify({ eval_set: EVAL_SET, app_name: 'a' }) })
    expect(res.status).toBe(400)
  })
})

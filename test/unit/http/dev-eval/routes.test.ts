/**
 * The ADK web UI's Eval tab routes in proxy mode, in process (app.request) against a loopback
 * agent that keeps sessions: the UI's own sequence (list, create, chat, add the session as a
 * case, run, read the results), ADK's other spelling, case edits, tenants, and what still goes to
 * the agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hono } from 'hono'
import { createApp } from '../../../../src/http/app.ts'
import { MAX_DEV_EVAL_BODY_BYTES } from '../../../../src/http/dev-eval/routes.ts'
import { MAX_ACTIVE_DEV_RUNS } from '../../../../src/http/dev-eval/run.ts'
import { createSessionEngine } from '../../../../src/engine/session-engine.ts'
import { criteriaCatalogue } from '../../../../src/core/registry.ts'
import { memorySessionStore } from '../../../../src/session/store.ts'
import { depsFromEnv } from '../../../../src/config/setup.ts'
import { NO_JUDGE_ENV } from '../../../support/no-judge-env.ts'
import { ACME_TOKEN, GLOBEX_TOKEN, TOKENS_ENV } from '../../../support/auth-suite.ts'
import { FINAL_TEXT } from '../../../support/weather-fixtures.ts'
import { type SessionAgent, startSessionAgent } from '../../../support/session-agent.ts'

type Json = any
const APP = 'weather_agent'
const BASE = `/dev/apps/${APP}`
const METRICS = [
  { metricName: 'tool_trajectory_avg_score', threshold: 1 },
  { metricName: 'response_match_score', threshold: 0.7 },
]

let agent: SessionAgent
let app: Hono
beforeAll(async () => {
  agent = await startSessionAgent()
  app = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o), agentUrl: agent.url })
})
afterAll(() => agent?.close())

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, on = app) => {
  const init: RequestInit = { method, headers: { 'content-type': 'application/json', ...headers } }
  if (body !== undefined) init.body = JSON.stringify(body)
  const res = await on.request(path, init)
  const text = await res.text()
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: text ? (JSON.parse(text) as Json) : undefined }
}

/** A chat in the UI: a session on the agent (through evalstream) and one turn of /run_sse. */
async function chat(userId: string, text: string): Promise<string> {
  const created = await call('POST', `/apps/${APP}/users/${userId}/sessions`, {})
  expect(created.status).toBe(200)
  const sessionId = created.body.id as string
  const res = await app.request('/run_sse', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ appName: APP, userId, sessionId, newMessage: { role: 'user', parts: [{ text }] }, streaming: false }),
  })
  expect(res.status).toBe(200)
  await res.text()
  return sessionId
}

describe('the Eval tab, as the UI calls it', () => {
  it('lists, creates, adds a chat as a case, runs it and reads the result back', async () => {
    // The UI shows the tab when this answers anything but 404.
    expect(await call('GET', `${BASE}/eval_sets`)).toMatchObject({ status: 200, body: [] })
    const created = await call('POST', `${BASE}/eval-sets`, {
      eval_set: { eval_set_id: 'smoke', model_execution_mode: 'live', tool_execution_mode: 'live', eval_cases: [] },
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({ evalSetId: 'smoke', evalCases: [] })
    expect(typeof created.body.creationTimestamp).toBe('number')
    expect((await call('GET', `${BASE}/eval_sets`)).body).toEqual(['smoke'])

    const sessionId = await chat('user', 'Weather and time in Paris?')
    expect(await call('POST', `${BASE}/eval_sets/smoke/add_session`, { evalId: 'paris', sessionId, userId: 'user' })).toMatchObject({
      status: 200,
      body: null,
    })
    expect((await call('GET', `${BASE}/eval_sets/smoke/evals`)).body).toEqual(['paris'])
    const evalCase = (await call('GET', `${BASE}/eval_sets/smoke/evals/paris`)).body
    expect(evalCase.evalId).toBe('paris')
    expect(evalCase.sessionInput).toEqual({ appName: APP, userId: 'user', state: {} })
    expect(evalCase.conversation).toHaveLength(1)
    expect(evalCase.conversation[0].userContent.parts[0].text).toBe('Weather and time in Paris?')
    expect(evalCase.conversation[0].finalResponse.parts[0].text).toBe(FINAL_TEXT)
    // A tool call's args are user data: never renamed.
    const calls = evalCase.conversation[0].intermediateData.invocationEvents.flatMap((e: Json) =>
      e.content.parts.filter((p: Json) => p.functionCall)
    )
    expect(calls.map((p: Json) => p.functionCall)).toMatchObject([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_time', args: { city: 'Paris' } },
    ])

    const run = await call('POST', `${BASE}/eval_sets/smoke/run_eval`, { evalIds: ['paris'], evalMetrics: METRICS })
    expect(run.status).toBe(200)
    expect(run.body).toHaveLength(1)
    const [result] = run.body
    expect(result).toMatchObject({ evalSetId: 'smoke', evalId: 'paris', finalEvalStatus: 1, userId: 'user' })
    expect(result.sessionId).toMatch(/^s-\d+$/)
    // Only the metrics with a verdict: the UI counts any other as a failure (informational ones stay stored).
    expect(result.overallEvalMetricResults.map((m: Json) => [m.metricName, m.score, m.evalStatus])).toEqual([
      ['tool_trajectory_avg_score', 1, 1],
      ['response_match_score', 1, 1],
    ])
    expect(result.evalMetricResultPerInvocation[0].evalMetricResults.map((m: Json) => m.evalStatus)).toEqual([1, 1])
    expect(result.evalMetricResultPerInvocation[0].actualInvocation.finalResponse.parts[0].text).toBe(FINAL_TEXT)

    const ids = (await call('GET', `${BASE}/eval_results`)).body
    expect(ids).toHaveLength(1)
    expect(ids[0]).toMatch(/^weather_agent_smoke_\d+(\.\d+)?$/)
    const stored = (await call('GET', `${BASE}/eval_results/${encodeURIComponent(ids[0])}`)).body
    expect(stored).toMatchObject({ evalSetResultId: ids[0], evalSetId: 'smoke' })
    expect(stored.evalCaseResults.map((c: Json) => [c.evalId, c.finalEvalStatus, c.sessionId])).toEqual([['paris', 1, result.sessionId]])
  })

  it("answers ADK's other spelling: eval-sets, eval-cases, add-session, run, eval-results", async () => {
    expect((await call('POST', `${BASE}/eval_sets/other`)).status).toBe(200)
    expect((await call('GET', `${BASE}/eval-sets`)).body).toEqual({ evalSetIds: ['other', 'smoke'] })
    const sessionId = await chat('ann', 'Weather and time in Paris?')
    expect((await call('POST', `${BASE}/eval-sets/other/add-session`, { eval_id: 'p', session_id: sessionId, user_id: 'ann' })).status)
      .toBe(200)
    expect((await call('GET', `${BASE}/eval-sets/other/eval-cases/p`)).body.sessionInput.userId).toBe('ann')
    const run = await call('POST', `${BASE}/eval-sets/other/run`, {
      eval_case_ids: [],
      eval_metrics: [{ metric_name: 'tool_trajectory_avg_score', threshold: 1 }],
    })
    expect(run.status).toBe(200)
    expect(run.body.runEvalResults.map((r: Json) => [r.evalId, r.finalEvalStatus])).toEqual([['p', 1]])
    const listed = (await call('GET', `${BASE}/eval-results`)).body.evalResultIds
    expect(listed).toHaveLength(2)
    expect((await call('GET', `${BASE}/eval-results/${encodeURIComponent(listed[1])}`)).body.evalSetId).toBe('other')
  })

  it('edits and deletes cases and sets; a changed expectation fails the next run', async () => {
    const path = `${BASE}/eval_sets/smoke/evals/paris`
    const current = (await call('GET', path)).body
    // Expect only get_time: the agent calls two tools, so the trajectory no longer matches.
    const turn = current.conversation[0]
    const edited = { ...turn, intermediateData: { toolUses: [{ name: 'get_time', args: { city: 'Paris' } }] } }
    expect(
      (await call('PUT', path, {
        evalId: 'paris',
        conversation: [edited],
        sessionInput: current.sessionInput,
        creationTimestamp: current.creationTimestamp,
      })).status,
    ).toBe(200)
    expect((await call('PUT', path, { evalId: 'other', conversation: [edited] })).status).toBe(400)
    const run = await call('POST', `${BASE}/eval_sets/smoke/run_eval`, { evalIds: [], evalMetrics: METRICS })
    expect(run.body.map((r: Json) => [r.evalId, r.finalEvalStatus])).toEqual([['paris', 2]])

    expect((await call('DELETE', path)).status).toBe(200)
    expect((await call('GET', path)).status).toBe(404)
    expect((await call('GET', `${BASE}/eval_sets/smoke/evals`)).body).toEqual([])
    expect((await call('DELETE', `${BASE}/eval_sets/smoke`)).status).toBe(200)
    expect((await call('GET', `${BASE}/eval_sets/smoke`)).status).toBe(404)
  })

  it('metrics-info lists the criterion catalogue with a [0, 1] threshold range', async () => {
    const info = (await call('GET', `${BASE}/metrics-info`)).body.metricsInfo
    expect(info.map((m: Json) => m.metricName)).toEqual(criteriaCatalogue().filter((c) => c.interval).map((c) => c.name))
    expect(info[0].metricValueInfo).toEqual({ interval: { minValue: 0, maxValue: 1, openAtMin: false, openAtMax: false } })
    expect(typeof info[0].description).toBe('string')
  })
})

describe('errors say what and where', () => {
  it('refuses bad ids, duplicates, unknown sets and sessions, and bad run requests', async () => {
    expect((await call('POST', `${BASE}/eval-sets`, { eval_set: { eval_set_id: 'bad id!', eval_cases: [] } })).body.detail).toContain(
      "'bad id!'",
    )
    await call('POST', `${BASE}/eval_sets/dupe`)
    const dupe = await call('POST', `${BASE}/eval_sets/dupe`)
    expect(dupe.status).toBe(400)
    expect(dupe.type).toBe('application/problem+json')
    expect((await call('GET', `${BASE}/eval_sets/nope/evals`)).status).toBe(400)
    expect((await call('POST', `${BASE}/eval_sets/nope/run_eval`, { evalMetrics: METRICS })).status).toBe(400)
    const missing = await call('POST', `${BASE}/eval_sets/dupe/add_session`, { evalId: 'x', sessionId: 'no-such', userId: 'user' })
    expect(missing.status).toBe(404)
    expect(missing.body.detail).toContain("no session 'no-such'")
    const badMetric = await call('POST', `${BASE}/eval_sets/dupe/run_eval`, { evalMetrics: [{ metricName: 'x' }] })
    expect(badMetric.status).toBe(400)
    expect(badMetric.body.detail).toMatch(/^evalMetrics\.0\.threshold/)
    expect((await call('GET', '/dev/apps/bad%20app/eval_sets')).status).toBe(400)
    // A session the agent answers with an event that is not an ADK event: 502, naming the event.
    agent.seed(APP, 'user', 'odd', [{ author: 'user', content: { parts: [{ text: 'hi' }] } }, { author: 42 }])
    const odd = await call('POST', `${BASE}/eval_sets/dupe/add_session`, { evalId: 'x', sessionId: 'odd', userId: 'user' })
    expect(odd.status).toBe(502)
    expect(odd.body.detail).toContain('events[1].author')
  })
})

describe('limits', () => {
  it(`a body over MAX_DEV_EVAL_BODY_BYTES (${MAX_DEV_EVAL_BODY_BYTES}) is 413 naming the limit`, async () => {
    await call('POST', `${BASE}/eval_sets/big`)
    const res = await app.request(`${BASE}/eval_sets/big/evals/x`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: `{"evalId":"${'x'.repeat(MAX_DEV_EVAL_BODY_BYTES)}"}`,
    })
    expect(res.status).toBe(413)
    expect(((await res.json()) as Json).detail).toContain('MAX_DEV_EVAL_BODY_BYTES')
  })

  it('a body nested past EVALSTREAM_MAX_JSON_DEPTH is 422 naming the path and limit, before the eval case parser walks it', async () => {
    await call('POST', `${BASE}/eval_sets/deep`)
    const body = `{"evalId":"x","conversation":${'['.repeat(100_000)}${']'.repeat(100_000)}}`
    const res = await app.request(`${BASE}/eval_sets/deep/evals/x`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body,
    })
    expect(res.status).toBe(422)
    expect(((await res.json()) as Json).detail).toMatch(/^\$\.conversation(\[0\])+: .*EVALSTREAM_MAX_JSON_DEPTH=100/)
  })

  it(`at most MAX_ACTIVE_DEV_RUNS (${MAX_ACTIVE_DEV_RUNS}) runs at once; one more is 429 until one ends`, async () => {
    const held = []
    for (let i = 0; i < MAX_ACTIVE_DEV_RUNS; i++) {
      const id = `held_${i}`
      await call('POST', `${BASE}/eval_sets/${id}`)
      const sessionId = await chat('user', 'Weather and time in Paris?')
      await call('POST', `${BASE}/eval_sets/${id}/add_session`, { evalId: 'c', sessionId, userId: 'user' })
      const evalCase = (await call('GET', `${BASE}/eval_sets/${id}/evals/c`)).body
      evalCase.conversation[0].userContent.parts[0].text = 'Weather and time in Paris? [hold]'
      await call('PUT', `${BASE}/eval_sets/${id}/evals/c`, evalCase)
      held.push(call('POST', `${BASE}/eval_sets/${id}/run_eval`, { evalMetrics: METRICS }))
    }
    await agent.held(MAX_ACTIVE_DEV_RUNS)
    const refused = await call('POST', `${BASE}/eval_sets/held_0/run_eval`, { evalMetrics: METRICS })
    expect(refused.status).toBe(429)
    expect(refused.body.detail).toContain('MAX_ACTIVE_DEV_RUNS')
    agent.release()
    for (const run of await Promise.all(held)) expect(run.status).toBe(200)
  })
})

describe('what is not ours still goes to the agent', () => {
  it('other /dev routes pass through; without AGENT_URL the eval routes do not exist', async () => {
    const trace = await call('GET', `${BASE}/debug/trace/session/s-1`)
    expect(trace.body).toEqual({ echo: `GET ${BASE}/debug/trace/session/s-1` })
    expect(agent.paths).toContain(`GET ${BASE}/debug/trace/session/s-1`)
    expect(agent.paths.some((p) => p.includes('eval_sets') || p.includes('eval-sets'))).toBe(false)
    const direct = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o) })
    expect((await call('GET', `${BASE}/eval_sets`, undefined, {}, direct)).status).toBe(404)
  })
})

describe('tenants', () => {
  it("an eval set belongs to the caller's tenant: others neither list, read nor delete it", async () => {
    const setup = depsFromEnv({ ...NO_JUDGE_ENV, EVALSTREAM_TOKENS: TOKENS_ENV, AGENT_URL: agent.url }, { store: memorySessionStore() })
    if (!setup.ok) throw new Error(setup.error)
    const tenantApp = createApp(setup.deps)
    const acme = { authorization: `Bearer ${ACME_TOKEN}` }
    const globex = { authorization: `Bearer ${GLOBEX_TOKEN}` }
    expect((await call('POST', `${BASE}/eval_sets/mine`, undefined, acme, tenantApp)).status).toBe(200)
    expect((await call('GET', `${BASE}/eval_sets`, undefined, acme, tenantApp)).body).toEqual(['mine'])
    expect((await call('GET', `${BASE}/eval_sets`, undefined, globex, tenantApp)).body).toEqual([])
    expect((await call('GET', `${BASE}/eval_sets/mine`, undefined, globex, tenantApp)).status).toBe(404)
    expect((await call('DELETE', `${BASE}/eval_sets/mine`, undefined, globex, tenantApp)).status).toBe(404)
    expect((await call('POST', `${BASE}/eval_sets/mine`, undefined, globex, tenantApp)).status).toBe(200)
    expect((await call('GET', `${BASE}/eval_sets`, undefined, {}, tenantApp)).status).toBe(401)
  })
})

/**
 * ADK's efficiency metrics through the real HTTP app (app.request, no socket needed): listed in the
 * catalogue, refused with a threshold at session creation, reported live per invocation with the
 * hosted session's clock, INFORMATIONAL over SSE and 4 in the ADK result file; ADK's other metric
 * names accepted and NOT_EVALUATED with a reason. The clock is the host's Date.now, moved with
 * vi.setSystemTime (only Date is faked; nothing waits on a timer).
 * Covers: src/core/criteria/efficiency.ts, src/core/criteria/invocation-duration.ts, src/core/criteria/token-usage.ts, src/adk/results-json.ts.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { evalSetResultJson, readEvalSetResult } from '../../../src/adk/results-json.ts'
import { EvalCaseResult, evalSetResult } from '../../../src/adk/results.ts'
import { runEval } from '../../../src/adapter/node/eval-command.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { createApp } from '../../../src/http/app.ts'
import { readSse } from '../../support/sse-client.ts'
import { MATCHING_CASE, WEATHER_EVENTS, WEATHER_SSE } from '../../support/weather-fixtures.ts'
import { testTempDir } from '../../support/temp-dir.ts'

const EFFICIENCY = ['tool_call_count_v1', 'inference_call_count_v1', 'token_usage_v1', 'invocation_duration_v1']
const json = { 'content-type': 'application/json' }

function setup() {
  const app = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o) })
  const create = (body: Record<string, unknown>) =>
    app.request('/v1/sessions', { method: 'POST', headers: json, body: JSON.stringify(body) })
  const push = (id: string, event: unknown) =>
    app.request(`/v1/sessions/${id}/events`, { method: 'POST', headers: json, body: JSON.stringify(event) })
  return { app, create, push }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(1_000_000)
})
afterEach(() => {
  vi.useRealTimers()
})

describe('efficiency metrics over HTTP', () => {
  it('are listed by GET /v1/criteria', async () => {
    const { app } = setup()
    const { criteria } = (await (await app.request('/v1/criteria')).json()) as { criteria: Array<{ name: string; description: string }> }
    const listed = criteria.filter((c) => EFFICIENCY.includes(c.name))
    expect(listed.map((c) => c.name)).toEqual(EFFICIENCY)
    for (const c of listed) expect(c.description).toMatch(/never passes or fails/i)
  })

  it.each([
    ['a bare threshold', 3, /takes no threshold: remove it from criteria/],
    ['a criterion object', { threshold: 1 }, /takes no threshold: remove it from criteria/],
    ['an entry without threshold', {}, /threshold/],
  ])('refuse a session whose config lists one with %s: 422 naming the JSON path', async (_what, entry, message) => {
    const { create } = setup()
    const res = await create({ session_id: 'bad', eval_config: { criteria: { response_match_score: 0.8, token_usage_v1: entry } } })
    expect(res.status).toBe(422)
    expect(res.headers.get('content-type')).toMatch(/problem\+json/)
    const problem = (await res.json()) as { detail: string }
    expect(problem.detail).toMatch(/\$\.criteria\.token_usage_v1/)
    expect(problem.detail).toMatch(message)
  })

  it('stream live per invocation, INFORMATIONAL, timed by the host clock; the case ignores them', async () => {
    const { app, create, push } = setup()
    const criteria = { response_match_score: 0.8, response_evaluation_score: 0.5, multi_turn_task_success_v1: 0.5 }
    expect((await create({ session_id: 'live', eval_config: { criteria }, eval_case: MATCHING_CASE })).status).toBe(201)
    const live = app.request('/v1/sessions/live/results')
    // The weather run's five events arrive 500 ms apart: 2 s from the first to the final answer.
    for (const [i, event] of WEATHER_EVENTS.entries()) {
      vi.setSystemTime(1_000_000 + i * 500)
      expect((await push('live', event)).status).toBe(202)
    }
    // Scored as the invocation completed, before the session ends.
    const snapshot = (await (await app.request('/v1/sessions/live')).json()) as any
    expect(snapshot.invocations[0].results.invocation_duration_v1).toMatchObject({ score: 2, status: 'INFORMATIONAL' })
    vi.setSystemTime(1_009_000) // the end comes later: it does not stretch a completed invocation
    const ended = (await (await app.request('/v1/sessions/live/end', { method: 'POST' })).json()) as any
    const frames = await readSse(await live)
    const results = frames.filter((f) => f.event === 'criterion.result').map((f) => f.data as Record<string, unknown>)
    expect(results.map((r) => [r.metric_name, r.score, r.eval_status, r.threshold])).toEqual([
      ['response_match_score', 1, 'PASSED', 0.8],
      // A conversation metric waits for the end; a judged one settles after the deterministic ones.
      ['multi_turn_task_success_v1', null, 'NOT_EVALUATED', 0.5],
      ['tool_call_count_v1', 2, 'INFORMATIONAL', null],
      ['inference_call_count_v1', 3, 'INFORMATIONAL', null],
      ['token_usage_v1', 171, 'INFORMATIONAL', null],
      ['invocation_duration_v1', 2, 'INFORMATIONAL', null],
      ['response_evaluation_score', null, 'NOT_EVALUATED', 0.5],
      // The session's end: the conversation is judged, here with no judge configured.
      ['multi_turn_task_success_v1', null, 'NOT_EVALUATED', 0.5],
    ])
    expect(results[1]!.reason).toMatch(/judged over the whole conversation once it ends/)
    expect(results[6]!.reason).toMatch(/no judge configured/)
    expect(results[7]!.reason).toMatch(/no judge configured/)
    expect((results[4]!.details as any).token_usage_details).toMatchObject({ input_tokens: 150, output_tokens: 21 })

    // The case result in ADK's file shape: 4 for INFORMATIONAL, no threshold nor criterion, the
    // breakdown in details; the informational metrics do not stop the case from passing.
    expect(ended.final_eval_status).toBe(1)
    const overall = ended.overall_eval_metric_results as any[]
    expect(overall.map((m) => [m.metric_name, m.eval_status])).toEqual([
      ['response_match_score', 1],
      ['response_evaluation_score', 3],
      ['multi_turn_task_success_v1', 3],
      ...EFFICIENCY.map((name) => [name, 4]),
    ])
    expect(overall.at(-2)).toMatchObject({
      threshold: null,
      criterion: null,
      score: 171,
      details: { token_usage_details: { total_tokens: 171 } },
    })
    expect(overall[0].details).toEqual({ rubric_scores: null }) // ADK 2.0's details, unchanged for other metrics
    expect(frames.at(-1)!.data).toEqual(ended)
  })

  it('a session fed without a clock reading (a capture) reports no duration', async () => {
    const engine = createSessionEngine({ spec: { session_id: 'file', eval_case: MATCHING_CASE }, emit: () => {} })
    if (!engine.ok) throw new Error(engine.problem.detail)
    const { decodeAll } = await import('../../../src/ingest/index.ts')
    for (const item of decodeAll('sse', WEATHER_SSE).events) engine.engine.push(item)
    const result = await engine.engine.end()
    const duration = result.overall_eval_metric_results.find((m) => m.metric_name === 'invocation_duration_v1')
    expect(duration).toMatchObject({ score: null, eval_status: 'INFORMATIONAL' })
  })
})

describe('the ADK result file', () => {
  it('writes INFORMATIONAL as 4 and the token breakdown as floats; reading it back gives the same bytes', async () => {
    const engine = createSessionEngine({ spec: { session_id: 's', eval_case: MATCHING_CASE }, emit: () => {}, clock: () => 0 })
    if (!engine.ok) throw new Error(engine.problem.detail)
    const { decodeAll } = await import('../../../src/ingest/index.ts')
    for (const item of decodeAll('sse', WEATHER_SSE).events) engine.engine.push(item)
    const caseResult = await engine.engine.end()
    const text = evalSetResultJson(evalSetResult({ appName: 'weather', evalSetId: 'set', caseResults: [caseResult], timestamp: 1.5 }))
    expect(text).toContain('"eval_status": 4')
    expect(text).toMatch(/"metric_name": "token_usage_v1",\n\s+"threshold": null,\n\s+"criterion": null/)
    expect(text).toMatch(/"token_usage_details": \{\n\s+"total_tokens": 171\.0,\n\s+"input_tokens": 150\.0/)
    const read = readEvalSetResult(text, { source: 'x' })
    if (!read.ok) throw new Error(read.error.message)
    expect(read.result.eval_case_results[0]!.overall_eval_metric_results.at(-1)!.eval_status).toBe('INFORMATIONAL')
    expect(evalSetResultJson(read.result)).toBe(text)
    expect(EvalCaseResult.safeParse(JSON.parse(text).eval_case_results[0]).success).toBe(true)
  })
})

describe('evalstream eval', () => {
  it('prints the efficiency metrics without a threshold, with the token breakdown and why there is no duration', async () => {
    vi.useRealTimers()
    const dir = testTempDir('efficiency-')
    const evalSetPath = join(dir, 'weather.evalset.json')
    writeFileSync(evalSetPath, JSON.stringify({ eval_set_id: 'weather', eval_cases: [MATCHING_CASE] }))
    const outcome = await runEval({ evalSetPath, eventsName: 'run.sse', eventsText: WEATHER_SSE, env: {} })
    if (!outcome.ok) throw new Error(outcome.error)
    expect(outcome.passed).toBe(true)
    expect(outcome.report).toMatch(
      /token_usage_v1 +171\.0 +- +INFORMATIONAL\n +input 150 \(prompt 150, cached n\/a, tool use n\/a\), output 21 \(candidates 21, reasoning n\/a\)/,
    )
    expect(outcome.report).toMatch(/invocation_duration_v1 +— +- +INFORMATIONAL\n +reason: not measured/)
  })

  it('refuses a config file with a threshold on an efficiency metric, naming the file and JSON path', async () => {
    vi.useRealTimers()
    const dir = testTempDir('efficiency-')
    const evalSetPath = join(dir, 'weather.evalset.json')
    writeFileSync(evalSetPath, JSON.stringify({ eval_set_id: 'weather', eval_cases: [MATCHING_CASE] }))
    const configPath = join(dir, 'config.json')
    writeFileSync(configPath, JSON.stringify({ criteria: { tool_call_count_v1: { threshold: 4 } } }))
    const outcome = await runEval({ evalSetPath, configPath, eventsName: 'run.sse', eventsText: WEATHER_SSE, env: {} })
    expect(outcome.ok).toBe(false)
    if (!outcome.ok) {
      expect(outcome.error).toMatch(
        new RegExp(`${configPath.replaceAll('/', '\\/')}.*\\$\\.criteria\\.tool_call_count_v1: .*takes no threshold`),
      )
    }
  })
})

describe('evalstream run', () => {
  it('refuses the run before any agent call when a config puts a threshold on an efficiency metric', async () => {
    const { planRun } = await import('../../../src/runner/run-eval-set.ts')
    const { EvalSet } = await import('../../../src/adk/eval-set.ts')
    const evalSet = EvalSet.parse({ eval_set_id: 'weather', eval_cases: [MATCHING_CASE] })
    const evalConfig = { criteria: { response_match_score: 0.8, invocation_duration_v1: 30 } }
    const plan = planRun([{ evalSet, evalConfig, source: 'weather.evalset.json' }], {
      agent: { url: 'http://127.0.0.1:9', app: 'weather' },
    })
    expect(plan).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^weather\.evalset\.json: eval case 'weather': Invalid eval_config: .*\$\.criteria\.invocation_duration_v1: .*takes no threshold/,
      ),
    })
  })
})

describe('a hosted session rebuilt from its journal', () => {
  const replay = async (at: (i: number) => number | undefined) => {
    const { HostedSession } = await import('../../../src/session/session.ts')
    const { createResultLog, memoryResultStorage } = await import('../../../src/session/result-log.ts')
    const entries = WEATHER_EVENTS.map((raw, i) => ({ op: 'event' as const, index: i, raw, ...(at(i) === undefined ? {} : { at: at(i) }) }))
    const opened = await HostedSession.open({
      spec: { session_id: 'replayed', eval_case: MATCHING_CASE },
      log: createResultLog(memoryResultStorage()),
      journal: { append: () => {}, entries: () => entries },
      createEngine: (o) => createSessionEngine(o),
      now: () => 99_999_999, // the replay's own time must not leak into durations
    })
    if (!opened.ok) throw new Error(opened.problem.detail)
    return (opened.session.snapshot() as any).invocations[0].results.invocation_duration_v1
  }

  it('times invocations with the journaled arrival times', async () => {
    expect(await replay((i) => 5_000 + i * 750)).toMatchObject({ score: 3, status: 'INFORMATIONAL' })
  })

  it('reports no duration for entries journaled without a time (older journals), rather than a wrong one', async () => {
    expect(await replay(() => undefined)).toMatchObject({
      score: null,
      status: 'INFORMATIONAL',
      reason: expect.stringMatching(/not measured/),
    })
  })
})

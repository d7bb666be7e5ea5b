/**
 * runEvalSets against a loopback ADK stand-in: what the agent is sent, how its answers are scored,
 * and how agent failures stay confined to their case.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { EvalSet } from '../../../src/adk/eval-set.ts'
import { runEvalSets, type RunProgress } from '../../../src/runner/index.ts'
import { CONFIG, FINAL_TEXT } from '../../support/weather-fixtures.ts'
import { REFUSED_ORIGIN } from '../../support/refused-port.ts'
import { startStubAgent, type StubAgent } from '../../support/stub-adk-server.ts'

const TOOLS = [
  { name: 'get_weather', args: { city: 'Paris' } },
  { name: 'get_time', args: { city: 'Paris' } },
]

function turn(text: string, tools = TOOLS) {
  return {
    invocation_id: `expected-${text}`,
    user_content: { role: 'user', parts: [{ text }] },
    final_response: { role: 'model', parts: [{ text: FINAL_TEXT }] },
    intermediate_data: { tool_uses: tools, intermediate_responses: [] },
  }
}

function evalSet(cases: Array<{ id: string; turns: string[]; userId?: string; state?: Record<string, unknown>; tools?: typeof TOOLS }>) {
  return EvalSet.parse({
    eval_set_id: 'stub_set',
    eval_cases: cases.map((c) => ({
      eval_id: c.id,
      conversation: c.turns.map((t) => turn(t, c.tools)),
      ...(c.userId ? { session_input: { app_name: 'weather', user_id: c.userId, state: c.state ?? {} } } : {}),
    })),
  })
}

let stub: StubAgent | undefined
afterEach(async () => {
  await stub?.close()
  stub = undefined
})

describe('runEvalSets', () => {
  it('creates a session per case with its user and state, sends each user_content streaming, and scores live', async () => {
    stub = await startStubAgent()
    const set = evalSet([
      { id: 'two_turns', turns: ['Weather in Paris?', 'And again?'], userId: 'alice', state: { units: 'metric' } },
      { id: 'default_user', turns: ['Paris please'] },
    ])
    const events: RunProgress[] = []
    const report = await runEvalSets([{ evalSet: set, evalConfig: CONFIG }], {
      agent: { url: stub.url, app: 'weather_agent' },
      parallel: 1,
      onProgress: (e) => events.push(e),
      now: () => 1234.5,
    })
    if (!report.ok) throw new Error(report.error)
    expect(stub.sessions.map((s) => [s.path, s.body])).toEqual([
      ['/apps/weather_agent/users/alice/sessions', { state: { units: 'metric' } }],
      ['/apps/weather_agent/users/test_user_id/sessions', { state: {} }],
    ])
    expect(stub.turns.map((t) => t.body)).toEqual([
      {
        appName: 'weather_agent',
        userId: 'alice',
        sessionId: 's-1',
        newMessage: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        streaming: true,
      },
      {
        appName: 'weather_agent',
        userId: 'alice',
        sessionId: 's-1',
        newMessage: { role: 'user', parts: [{ text: 'And again?' }] },
        streaming: true,
      },
      {
        appName: 'weather_agent',
        userId: 'test_user_id',
        sessionId: 's-2',
        newMessage: { role: 'user', parts: [{ text: 'Paris please' }] },
        streaming: true,
      },
    ])
    expect(report.passed).toBe(true)
    expect(report.totals).toEqual({ cases: 2, PASSED: 2, FAILED: 0, NOT_EVALUATED: 0 })
    const result = report.sets[0]!.evalSetResult
    expect(result.eval_set_result_id).toBe('weather_agent_stub_set_1234.5')
    const first = result.eval_case_results[0]!
    expect(first).toMatchObject({
      eval_id: 'two_turns',
      eval_set_id: 'stub_set',
      session_id: 's-1',
      user_id: 'alice',
      final_eval_status: 'PASSED',
    })
    // Two invocations, each with the user's own message as its user content.
    expect(first.eval_metric_result_per_invocation.map((p) => p.actual_invocation.user_content.parts?.[0]?.text)).toEqual([
      'Weather in Paris?',
      'And again?',
    ])
    expect(first.overall_eval_metric_results.map((m) => [m.metric_name, m.eval_status])).toEqual([
      ['tool_trajectory_avg_score', 'PASSED'],
      ['response_match_score', 'PASSED'],
      ['tool_call_count_v1', 'INFORMATIONAL'],
      ['inference_call_count_v1', 'INFORMATIONAL'],
      ['token_usage_v1', 'INFORMATIONAL'],
      ['invocation_duration_v1', 'INFORMATIONAL'],
    ])
    expect(events.filter((e) => e.type === 'invocation.done')).toHaveLength(3)
    expect(events[0]).toEqual({ type: 'run.started', cases: 2, units: 2, invocations: 3 })
    // Two configured metrics and ADK's four efficiency metrics on each of the 3 invocations.
    expect(events.filter((e) => e.type === 'result' && e.body.type === 'criterion.result')).toHaveLength(18)
  })

  it('a wrong trajectory fails its case; the report is not passed', async () => {
    stub = await startStubAgent()
    const set = evalSet([{ id: 'wrong', turns: ['Paris?'], tools: [{ name: 'get_time', args: { city: 'Paris' } }] }])
    const report = await runEvalSets([{ evalSet: set, evalConfig: CONFIG }], { agent: { url: stub.url, app: 'a' } })
    if (!report.ok) throw new Error(report.error)
    expect(report.sets[0]!.cases[0]!.status).toBe('FAILED')
    expect(report.passed).toBe(false)
  })

  it('agent errors make only their case NOT_EVALUATED, with the reason; the other cases still run', async () => {
    stub = await startStubAgent()
    const set = evalSet([
      { id: 'ok_before', turns: ['Paris?'] },
      { id: 'http_500', turns: ['Paris? [500]'] },
      { id: 'hangs', turns: ['Paris? [hang]'] },
      { id: 'agent_error', turns: ['Paris? [agent-error]'] },
      { id: 'no_session', turns: ['Paris?'], userId: 'no-session' },
      { id: 'second_turn_fails', turns: ['Paris?', 'again [500]'] },
      { id: 'ok_after', turns: ['Paris?'] },
    ])
    const report = await runEvalSets([{ evalSet: set, evalConfig: CONFIG }], {
      agent: { url: stub.url, app: 'weather_agent' },
      parallel: 3,
      timeouts: { turnMs: 300 },
    })
    if (!report.ok) throw new Error(report.error)
    const byId = Object.fromEntries(report.sets[0]!.cases.map((c) => [c.evalId, c]))
    expect(byId.ok_before!.status).toBe('PASSED')
    expect(byId.ok_after!.status).toBe('PASSED')
    expect(byId.http_500).toMatchObject({
      status: 'NOT_EVALUATED',
      reason: expect.stringMatching(/POST \/run_sse\).*answered 500: .*model overloaded/),
    })
    expect(byId.hangs).toMatchObject({ status: 'NOT_EVALUATED', reason: expect.stringContaining('within 300 ms') })
    expect(byId.agent_error).toMatchObject({ status: 'NOT_EVALUATED', reason: 'turn 1: the agent reported an error: tool crashed' })
    expect(byId.no_session).toMatchObject({ status: 'NOT_EVALUATED', reason: expect.stringMatching(/creating a session .*answered 500/) })
    expect(byId.second_turn_fails).toMatchObject({ status: 'NOT_EVALUATED', reason: expect.stringContaining('answered 500') })
    expect(report.totals).toEqual({ cases: 7, PASSED: 2, FAILED: 0, NOT_EVALUATED: 5 })
    expect(report.passed).toBe(false)
    // Every case is in the ADK result, a broken one as NOT_EVALUATED with no metric results.
    const results = report.sets[0]!.evalSetResult.eval_case_results
    expect(results.map((r) => r.eval_id)).toEqual(set.eval_cases.map((c) => c.eval_id))
    expect(results[1]).toMatchObject({ final_eval_status: 'NOT_EVALUATED', overall_eval_metric_results: [], session_id: 's-2' })
  })

  it('an agent that is not listening: every case NOT_EVALUATED, naming the refused connection', async () => {
    const set = evalSet([{ id: 'a', turns: ['Paris?'] }, { id: 'b', turns: ['Paris?'] }])
    const report = await runEvalSets([{ evalSet: set }], { agent: { url: REFUSED_ORIGIN, app: 'x' } })
    if (!report.ok) throw new Error(report.error)
    for (const c of report.sets[0]!.cases) {
      expect(c).toMatchObject({ status: 'NOT_EVALUATED', reason: expect.stringContaining('ECONNREFUSED') })
    }
  })

  it('keeps at most `parallel` cases talking to the agent', async () => {
    stub = await startStubAgent({ hold: 2 })
    const set = evalSet(Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, turns: ['Paris?'] })))
    const report = await runEvalSets([{ evalSet: set, evalConfig: CONFIG }], { agent: { url: stub.url, app: 'a' }, parallel: 2 })
    if (!report.ok) throw new Error(report.error)
    expect(report.passed).toBe(true)
    // The stub holds each turn until two are in flight: two at once happened, never three.
    expect(stub.maxInFlight).toBe(2)
  })

  it('--num-runs: every run is in the result, in its own session', async () => {
    stub = await startStubAgent()
    const set = evalSet([{ id: 'a', turns: ['Paris?'] }, { id: 'b', turns: ['Paris?'] }])
    const report = await runEvalSets([{ evalSet: set, evalConfig: CONFIG }], { agent: { url: stub.url, app: 'a' }, numRuns: 3 })
    if (!report.ok) throw new Error(report.error)
    const results = report.sets[0]!.evalSetResult.eval_case_results
    expect(results.map((r) => r.eval_id)).toEqual(['a', 'a', 'a', 'b', 'b', 'b'])
    expect(new Set(results.map((r) => r.session_id)).size).toBe(6)
    expect(report.sets[0]!.cases.map((c) => [c.evalId, c.status, c.runs.length])).toEqual([
      ['a', 'PASSED', 3],
      ['b', 'PASSED', 3],
    ])
    expect(report.sets[0]!.cases[0]!.overall[0]).toMatchObject({
      metric_name: 'tool_trajectory_avg_score',
      score: 1,
      eval_status: 'PASSED',
    })
  })

  it('case ids pick cases; a conversation_scenario case is NOT_EVALUATED without calling the agent', async () => {
    stub = await startStubAgent()
    const set = EvalSet.parse({
      eval_set_id: 'mixed',
      eval_cases: [
        { eval_id: 'static', conversation: [turn('Paris?')] },
        { eval_id: 'skipped', conversation: [turn('Paris?')] },
        { eval_id: 'scenario', conversation_scenario: { starting_prompt: 'hi', conversation_plan: 'ask about Paris' } },
      ],
    })
    const report = await runEvalSets([{ evalSet: set, caseIds: ['scenario', 'static'], evalConfig: CONFIG }], {
      agent: { url: stub.url, app: 'a' },
    })
    if (!report.ok) throw new Error(report.error)
    expect(report.sets[0]!.cases.map((c) => [c.evalId, c.status])).toEqual([
      ['static', 'PASSED'],
      ['scenario', 'NOT_EVALUATED'],
    ])
    expect(report.sets[0]!.cases[1]!.reason).toContain('user simulator')
    expect(stub.sessions).toHaveLength(1)
  })

  it('bad input fails before the agent sees a request, naming what and where', async () => {
    stub = await startStubAgent()
    const set = evalSet([{ id: 'a', turns: ['Paris?'] }])
    const agent = { url: stub.url, app: 'a' }
    const errorOf = async (...args: Parameters<typeof runEvalSets>) => {
      const r = await runEvalSets(...args)
      return r.ok ? 'ok' : r.error
    }
    expect(await errorOf([{ evalSet: set, caseIds: ['nope'], source: 'tests/w.evalset.json' }], { agent })).toBe(
      "tests/w.evalset.json: no eval case 'nope' (cases: a)",
    )
    expect(await errorOf([{ evalSet: set, evalConfig: { criteria: 'x' }, source: 'w.json' }], { agent })).toMatch(
      /^w\.json: eval case 'a': Invalid eval_config/,
    )
    expect(await errorOf([{ evalSet: set }], { agent, parallel: 0 })).toBe('parallel must be a whole number from 1 to 64, not 0')
    expect(await errorOf([{ evalSet: set }], { agent, numRuns: 101 })).toBe('num runs must be a whole number from 1 to 100, not 101')
    expect(await errorOf([{ evalSet: set }], { agent: { url: 'ftp://x', app: 'a' } })).toBe(
      "the agent URL must be an http(s) URL, not 'ftp://x'",
    )
    expect(await errorOf([{ evalSet: set }], { agent, timeouts: { turnMs: -1 } })).toBe(
      'timeout turnMs must be a positive number of milliseconds up to 2147483647 (2^31-1), not -1',
    )
    expect(stub.sessions).toHaveLength(0)
  })
})

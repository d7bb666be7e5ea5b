import { describe, expect, it } from 'vitest'
import { decodeAll } from '../../../src/ingest/index.ts'
import { createSessionEngine, type SessionEngineOptions } from '../../../src/engine/session-engine.ts'
import type { EngineEmission, SessionEngine } from '../../../src/engine/types.ts'
import { readShared } from '../../support/shared-data.ts'

const sample = (name: string) => decodeAll('sse', readShared('samples', name)).events

const text = (t: string) => ({ parts: [{ text: t }] })
const FINAL_TEXT = 'In Paris it is sunny, 21C, and the time is 10:30.'
const weatherCase = (calls: Array<{ name: string; args: Record<string, unknown> }>, reference = FINAL_TEXT) => ({
  eval_id: 'paris',
  conversation: [
    {
      invocation_id: 'expected-1',
      user_content: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
      final_response: { role: 'model', parts: [{ text: reference }] },
      intermediate_data: { tool_uses: calls },
    },
  ],
})
const BOTH_CALLS = [
  { name: 'get_weather', args: { city: 'Paris' } },
  { name: 'get_time', args: { city: 'Paris' } },
]

function start(spec: Partial<SessionEngineOptions['spec']>, extra: Partial<SessionEngineOptions> = {}) {
  const emitted: EngineEmission[] = []
  const created = createSessionEngine({
    spec: { session_id: 's1', ...spec },
    emit: (body) => emitted.push(body),
    ...extra,
  })
  if (!created.ok) throw new Error(`${created.problem.title}: ${created.problem.detail}`)
  return { engine: created.engine, emitted }
}

function results(emitted: EngineEmission[], type = 'criterion.result') {
  return emitted.filter((e) => e.type === type).map((e) => e.data as Record<string, unknown>)
}

function pushAll(engine: SessionEngine, events: ReturnType<typeof sample>) {
  for (const item of events) engine.push(item)
}

describe('session engine', () => {
  it('scores the ADK JS capture against a matching case with ADK default criteria', async () => {
    const { engine, emitted } = start({ eval_case: weatherCase(BOTH_CALLS) })
    pushAll(engine, sample('adk-js-weather.sse'))
    const caseResult = await engine.end()
    expect(emitted.map((e) => e.type)).toEqual([
      'invocation.started',
      ...Array(6).fill('criterion.result'),
      'case.result',
    ])
    // The configured criteria, then ADK's efficiency metrics, always reported: two tool calls, three
    // model responses of 50 + 7 tokens each; no clock was given, so no duration.
    expect(results(emitted).map((r) => [r.metric_name, r.score, r.eval_status])).toEqual([
      ['tool_trajectory_avg_score', 1, 'PASSED'],
      ['response_match_score', 1, 'PASSED'],
      ['tool_call_count_v1', 2, 'INFORMATIONAL'],
      ['inference_call_count_v1', 3, 'INFORMATIONAL'],
      ['token_usage_v1', 171, 'INFORMATIONAL'],
      ['invocation_duration_v1', null, 'INFORMATIONAL'],
    ])
    expect(caseResult.final_eval_status).toBe('PASSED')
    expect(caseResult.eval_id).toBe('paris')
  })

  it('gives the same results for the streaming capture, with provisional ROUGE while text streams', async () => {
    const { engine, emitted } = start({ eval_case: weatherCase(BOTH_CALLS) })
    pushAll(engine, sample('adk-js-weather-streaming.sse'))
    await engine.end()
    const provisional = results(emitted, 'criterion.progress').filter((p) => p.metric_name === 'response_match_score')
    expect(provisional.length).toBeGreaterThan(0)
    expect(provisional.every((p) => p.final === false)).toBe(true)
    // Partial chunks and the content-less events after each streamed call count no model call twice.
    expect(results(emitted).map((r) => r.score)).toEqual([1, 1, 2, 3, 171, null])
  })

  it('reports an EXACT failure before the agent has finished', () => {
    const { engine, emitted } = start({ eval_case: weatherCase([{ name: 'get_time', args: { city: 'Paris' } }]) })
    const events = sample('adk-js-weather.sse')
    engine.push(events[0]!) // get_weather: diverges from the expected get_time
    const early = results(emitted, 'criterion.progress').find((p) => p.metric_name === 'tool_trajectory_avg_score')
    expect(early).toMatchObject({ final: true, score: 0, eval_status: 'FAILED' })
    expect(results(emitted)).toEqual([]) // the final result waits for the invocation to complete
  })

  it('marks reference-based criteria NOT_EVALUATED without a case, with a reason', async () => {
    const { engine, emitted } = start({})
    pushAll(engine, sample('adk-js-weather.sse'))
    const caseResult = await engine.end()
    // Both default criteria, each with its reason: an empty list must fail here, not pass.
    expect(results(emitted).slice(0, 2)).toEqual([
      expect.objectContaining({
        metric_name: 'tool_trajectory_avg_score',
        eval_status: 'NOT_EVALUATED',
        reason: expect.stringMatching(/expected invocation/),
      }),
      expect.objectContaining({
        metric_name: 'response_match_score',
        eval_status: 'NOT_EVALUATED',
        reason: expect.stringMatching(/expected invocation/),
      }),
    ])
    // Informational metrics never decide a case: it stays NOT_EVALUATED with their values present.
    expect(results(emitted).slice(2).map((r) => r.eval_status)).toEqual(Array(4).fill('INFORMATIONAL'))
    expect(caseResult.final_eval_status).toBe('NOT_EVALUATED')
  })

  it('keeps scoring the other metrics when one is not implemented', async () => {
    const { engine, emitted } = start({
      eval_case: weatherCase(BOTH_CALLS),
      eval_config: { criteria: { no_such_metric: 0.5, response_match_score: 0.8 } },
    })
    pushAll(engine, sample('adk-js-weather.sse'))
    const caseResult = await engine.end()
    const byName = Object.fromEntries(results(emitted).map((r) => [r.metric_name, r]))
    expect(byName.no_such_metric).toMatchObject({ eval_status: 'NOT_EVALUATED', reason: expect.stringMatching(/not implemented/) })
    expect(byName.response_match_score).toMatchObject({ eval_status: 'PASSED', score: 1 })
    expect(caseResult.final_eval_status).toBe('PASSED')
  })

  it('refuses a config whose criterion options are invalid, naming the JSON path (422)', () => {
    const created = createSessionEngine({
      spec: { session_id: 's', eval_config: { criteria: { tool_trajectory_avg_score: { threshold: 1, match_type: 'sideways' } } } },
      emit: () => {},
    })
    expect(created).toMatchObject({ ok: false, problem: { status: 422, title: 'Invalid eval_config' } })
    if (!created.ok) expect(created.problem.detail).toMatch(/^eval_config: \$\.criteria\.tool_trajectory_avg_score\.match_type: .*sideways/)
  })

  it('pairs the n-th invocation with the n-th expected invocation', async () => {
    const second = {
      invocation_id: 'expected-2',
      user_content: text('And tomorrow?'),
      final_response: text('Tomorrow it rains.'),
      intermediate_data: { tool_uses: [] },
    }
    const evalCase = weatherCase(BOTH_CALLS)
    evalCase.conversation.push(second as never)
    const { engine, emitted } = start({ eval_case: evalCase })
    pushAll(engine, sample('adk-js-weather.sse'))
    const inv2 = (content: object, author = 'agent') => ({ index: 99, raw: {}, event: { invocation_id: 'e-2', author, content } })
    engine.push(inv2(text('And tomorrow?'), 'user'))
    engine.push(inv2(text('Tomorrow it rains.')))
    const caseResult = await engine.end()
    const configured = results(emitted).filter((r) => r.threshold !== null)
    expect(configured.map((r) => [r.invocation_index, r.metric_name, r.score])).toEqual([
      [0, 'tool_trajectory_avg_score', 1],
      [0, 'response_match_score', 1],
      [1, 'tool_trajectory_avg_score', 1],
      [1, 'response_match_score', 1],
    ])
    expect(caseResult.eval_metric_result_per_invocation).toHaveLength(2)
  })

  it('revises an invocation whose final response is followed by another agent', async () => {
    const { engine, emitted } = start({ eval_case: weatherCase([], 'Second agent answer.') })
    const event = (author: string, t: string) => ({ index: 0, raw: {}, event: { invocation_id: 'e-1', author, content: text(t) } })
    engine.push(event('first_agent', 'First agent answer.'))
    engine.push(event('second_agent', 'Second agent answer.'))
    const caseResult = await engine.end()
    const rouge = results(emitted).filter((r) => r.metric_name === 'response_match_score')
    expect(rouge.map((r) => [r.score === 1, r.revision ?? 0])).toEqual([
      [false, 0],
      [true, 1],
    ])
    const overall = caseResult.overall_eval_metric_results
    expect(overall.find((m) => m.metric_name === 'response_match_score')?.score).toBe(1)
  })

  it('logs no revision of a reopened invocation whose results come out the same; revises the one that changed', async () => {
    const { engine, emitted } = start({ eval_case: weatherCase([], 'Second agent answer.') })
    const event = (author: string, t: string) => ({ index: 0, raw: {}, event: { invocation_id: 'e-1', author, content: text(t) } })
    engine.push(event('first_agent', 'Second agent answer.'))
    engine.push(event('second_agent', 'Second agent answer.'))
    engine.push(event('third_agent', 'Something else entirely.'))
    const caseResult = await engine.end()
    const byMetric = (name: string) => results(emitted).filter((r) => r.metric_name === name).map((r) => [r.score, r.revision ?? 0])
    // The same text twice: ROUGE-1 is 1 both times, so the first reopening logs nothing; the third text changes it.
    expect(byMetric('response_match_score')).toEqual([[1, 0], [0, 2]])
    // No tool calls expected or made: 1 each time, logged once.
    expect(byMetric('tool_trajectory_avg_score')).toEqual([[1, 0]])
    expect(caseResult.overall_eval_metric_results.find((m) => m.metric_name === 'response_match_score')?.score).toBe(0)
  })

  it('reports a rejected event as an error result and goes on', async () => {
    const { engine, emitted } = start({ eval_case: weatherCase(BOTH_CALLS) })
    const events = sample('adk-js-weather.sse')
    engine.push(events[0]!)
    engine.reject({ index: 1, message: 'invalid JSON', path: '$' })
    for (const e of events.slice(1)) engine.push(e)
    await engine.end()
    expect(emitted.find((e) => e.type === 'error')?.data).toMatchObject({ index: 1, message: 'invalid JSON' })
    expect(results(emitted).find((r) => r.metric_name === 'tool_trajectory_avg_score')?.score).toBe(1)
  })

  it('rejects a malformed eval case with a problem naming the path', () => {
    const created = createSessionEngine({
      spec: { session_id: 's', eval_case: { eval_id: 'x', conversation: [{ user_content: 5 }] } },
      emit: () => {},
    })
    expect(created.ok).toBe(false)
    if (!created.ok) expect(created.problem.detail).toMatch(/conversation\[0\]\.user_content/)
  })
})

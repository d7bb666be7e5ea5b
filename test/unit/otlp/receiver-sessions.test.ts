/**
 * OTLP-born sessions as sessions: a diverging trajectory is written back to the `execute_tool`
 * span of the call that did not fit; a SQLite-backed session rebuilt after a restart answers what
 * the trace could not show (content off) exactly as it did live; tenants each get their own
 * conversation sessions, and a request without a token is refused like on every route.
 * Covers: src/otlp-monitor/monitor.ts, src/otlp-monitor/traced-engine.ts, src/otlp-monitor/conversations.ts, src/otlp-monitor/early.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { TOKENS, TWO_TENANTS_ENV } from '../support/two-tenants.ts'
import { fixtureText } from './support/fixtures.ts'
import { fixtureRequests, receiverApp, WEATHER_CASE, WEATHER_CONFIG } from './support/receiver-app.ts'

const IDLE = 31 * 60 * 1000
const attr = (l: Record<string, any>, key: string) => l.attributes.find((a: { key: string }) => a.key === key)?.value

describe('OTLP-born sessions', () => {
  it('writes a failed trajectory to the execute_tool span of the first call that did not fit', async () => {
    // The reference expects only London in turn 2; the agent also asked for Tokyo (model order: London, Tokyo).
    const expected = structuredClone(WEATHER_CASE)
    expected.conversation[1].intermediate_data.tool_uses = [{ name: 'get_weather', args: { city: 'London' } }]
    const config = JSON.stringify({ apps: { weather_agent: { eval_config: WEATHER_CONFIG, eval_case: expected } } })
    const r = receiverApp({ env: { EVALSTREAM_OTLP_CONFIG: config } })
    for (const line of fixtureRequests(fixtureText('adk-js.jsonl'))) expect((await r.post('/v1/traces', line)).status).toBe(200)
    await r.deps.exporters!.idle()
    const trajectory = r.collected.filter((l) => attr(l, 'gen_ai.evaluation.name')?.stringValue === 'tool_trajectory_avg_score')
    expect(trajectory.map((l) => [attr(l, 'gen_ai.evaluation.score.label')?.stringValue, l.spanId])).toEqual([
      ['passed', '0000000003000001'],
      // Tokyo's execute_tool span (it started first, but the model asked for it second).
      ['failed', '0000000003010006'],
    ])
    expect(trajectory[1]?.traceId).toBe('000000016e2a96880000000000000002')
  })

  it("decides a wrong tool call from the child spans, before the turn's root span arrives", async () => {
    const expected = structuredClone(WEATHER_CASE)
    expected.conversation[0].intermediate_data.tool_uses = [{ name: 'get_weather', args: { city: 'Lyon' } }]
    const config = JSON.stringify({ apps: { weather_agent: { eval_config: WEATHER_CONFIG, eval_case: expected } } })
    const r = receiverApp({ env: { EVALSTREAM_OTLP_CONFIG: config } })
    const [children] = fixtureRequests(fixtureText('adk-js.jsonl')) // turn 1 without its root
    expect((await r.post('/v1/traces', children!)).status).toBe(200)
    const session = await r.deps.store.get('otlp-session-js', r.deps.createEngine)
    const trajectory = session!.log.readAfter(0).filter((e) =>
      'metric_name' in e.data && e.data.metric_name === 'tool_trajectory_avg_score'
    )
    expect(trajectory.map((e) => [e.type, (e.data as { score?: unknown }).score, (e.data as { final?: unknown }).final])).toEqual([[
      'criterion.progress',
      0,
      true,
    ]])
    expect(session!.log.readAfter(0).some((e) => e.type === 'criterion.result')).toBe(false)
  })

  it('a session rebuilt after a restart answers the unscorable metrics as it did live', async () => {
    const db = new DatabaseSync(':memory:')
    try {
      const clock = { now: 1_763_976_100_000 }
      const live = receiverApp({ db, clock })
      for (const line of fixtureRequests(fixtureText('adk-python-v1-content-off.jsonl'))) {
        expect((await live.post('/v1/traces', line)).status).toBe(200)
      }
      const id = 'otlp-session-py-v1-content-off'
      const before = (await (await live.app.request(`/v1/sessions/${id}`)).json()) as {
        invocations: Array<{ results: Record<string, any> }>
      }
      expect(before.invocations[0]!.results.response_match_score).toMatchObject({
        score: null,
        reason: expect.stringMatching(/^final response unknown: the agent exported no message content/),
      })
      live.deps.store.close()

      // A new process on the same database: the session is rebuilt by replaying its journal.
      const restarted = receiverApp({ db, clock })
      const after = (await (await restarted.app.request(`/v1/sessions/${id}`)).json()) as typeof before
      expect(after.invocations).toEqual(before.invocations)
      const ended = (await (await restarted.post(`/v1/sessions/${id}/end`, '')).json()) as {
        overall_eval_metric_results: Array<{ metric_name: string; eval_status: number; score?: number }>
      }
      expect(ended.overall_eval_metric_results.find((m) => m.metric_name === 'response_match_score')?.eval_status).toBe(3) // NOT_EVALUATED
      // The root span's duration, from the trace's own times the journal kept, not from when the replay ran.
      expect(ended.overall_eval_metric_results.find((m) => m.metric_name === 'invocation_duration_v1')).toMatchObject({ score: 3 })
    } finally {
      db.close()
    }
  })

  it('ends a conversation by its idle time after a restart too', async () => {
    const db = new DatabaseSync(':memory:')
    try {
      const clock = { now: 1_763_976_100_000 }
      const live = receiverApp({ db, clock })
      for (const line of fixtureRequests(fixtureText('adk-js.jsonl'))) expect((await live.post('/v1/traces', line)).status).toBe(200)
      live.deps.store.close()
      // A new process on the same database, past the idle time: its first tick ends the conversation.
      clock.now += IDLE
      const restarted = receiverApp({ db, clock })
      await restarted.monitor.tick()
      const session = await restarted.deps.store.get('otlp-session-js', restarted.deps.createEngine)
      expect(session?.ended).toBe(true)
      expect(session?.log.readAfter(0).at(-1)?.type).toBe('case.result')
      // Ended once: the next tick has nothing left to end.
      expect(restarted.monitor.activeConversations()).toBe(0)
    } finally {
      db.close()
    }
  })

  it('keeps tenants apart and asks for a token like every route', async () => {
    const r = receiverApp({ env: TWO_TENANTS_ENV as Record<string, string> })
    const as = (tenant: keyof typeof TOKENS) => ({ 'content-type': 'application/json', authorization: `Bearer ${TOKENS[tenant]}` })
    const [first] = fixtureRequests(fixtureText('adk-js.jsonl'))
    expect((await r.post('/v1/traces', first!)).status).toBe(401)
    for (const line of fixtureRequests(fixtureText('adk-js.jsonl'))) {
      expect((await r.post('/v1/traces', line, as('acme'))).status).toBe(200)
      expect((await r.post('/v1/traces', line, as('globex'))).status).toBe(200)
    }
    const get = (tenant: keyof typeof TOKENS, id: string) => r.app.request(`/v1/sessions/${id}`, { headers: as(tenant) })
    expect((await get('acme', 'acme:otlp-session-js')).status).toBe(200)
    expect((await get('globex', 'globex:otlp-session-js')).status).toBe(200)
    expect((await get('globex', 'acme:otlp-session-js')).status).toBe(404)
    r.clock.now += IDLE
    await r.monitor.tick()
    const acme = await r.deps.store.get('acme:otlp-session-js', r.deps.createEngine)
    expect(acme?.ended).toBe(true)
  })
})

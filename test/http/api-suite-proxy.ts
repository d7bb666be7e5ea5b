/**
 * Proxy mode, part of the API suite: evalstream between an ADK client and the agent stub.
 */
import { describe, expect, it } from 'vitest'
import { rawGet } from '../support/duplex.ts'
import { readSse } from '../support/sse-client.ts'
import type { ApiTarget, apiClient } from './api-suite.ts'
import { CONFIG, MATCHING_CASE, WEATHER_SSE } from './fixtures.ts'

const NEW_MESSAGE = { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] }

/** Splits a raw SSE body into frames exactly as sent, and the agent's frames back out of it. */
const framesOf = (text: string) => text.split(/(?<=\n\n)/).filter((f) => f !== '')
const isOurs = (frame: string) => frame.startsWith('event: evalstream\n')
const ours = (text: string) => framesOf(text).filter(isOurs).map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)))

export function proxySuite(target: () => ApiTarget, api: ReturnType<typeof apiClient>): void {
  let n = 0
  const runSse = (sessionId: string, headers: Record<string, string> = {}) =>
    fetch(api.url('/run_sse'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ appName: 'weather_agent', userId: 'u1', sessionId, newMessage: NEW_MESSAGE, streaming: false }),
    })

  describe('proxy mode', () => {
    it('passes every agent frame through unchanged and interleaves evalstream frames after the frames that caused them', async () => {
      const adkSession = `adk-${Date.now().toString(36)}-${++n}`
      const res = await runSse(adkSession)
      expect(res.status).toBe(200)
      expect(res.headers.get('x-evalstream-session')).toBe(adkSession)
      const text = await res.text()
      expect(framesOf(text).filter((f) => !isOurs(f)).join('')).toBe(WEATHER_SSE)
      const results = ours(text)
      expect(results.map((r) => r.type)).toEqual(['invocation.started', 'criterion.result', 'criterion.result'])
      // invocation.started right after the first agent frame, the results right after the final answer.
      const frames = framesOf(text)
      expect(isOurs(frames[1]!)).toBe(true)
      expect(frames.slice(-2).every(isOurs)).toBe(true)
      expect(results.map((r) => r.seq)).toEqual([1, 2, 3])
      // The agent got the request as sent; the session exists under the ADK session id.
      const sent = target().agentRequests().find((r) => r.path === '/run_sse' && r.body.includes(adkSession))
      expect(JSON.parse(sent!.body).newMessage).toEqual(NEW_MESSAGE)
      const snapshot = (await (await fetch(api.url(`/v1/sessions/${adkSession}`))).json()) as any
      expect(snapshot.invocations).toHaveLength(1)
    })

    it('scores against an existing session named by X-Evalstream-Session, user message included', async () => {
      const { json } = await api.create({ eval_config: CONFIG, eval_case: MATCHING_CASE })
      const res = await runSse('adk-any', { 'x-evalstream-session': json.session_id })
      expect(res.headers.get('x-evalstream-session')).toBe(json.session_id)
      const results = ours(await res.text())
      const trajectory = results.find((r) => r.type === 'criterion.result' && r.data.metric_name === 'tool_trajectory_avg_score')
      expect(trajectory.data).toMatchObject({ score: 1, eval_status: 'PASSED' })
      const caseResult = (await (await api.end(json.session_id)).json()) as any
      expect(JSON.stringify(caseResult)).toContain('Weather and time in Paris?')
      const all = await readSse(await api.results(json.session_id))
      expect(all.map((m) => m.event)).toEqual(['invocation.started', 'criterion.result', 'criterion.result', 'case.result'])
    })

    it('answers 404 for an X-Evalstream-Session that does not exist', async () => {
      const res = await runSse('adk-x', { 'x-evalstream-session': 'never-created' })
      expect(res.status).toBe(404)
    })

    it("forwards other ADK routes as is, and only to the agent's origin", async () => {
      const apps = await fetch(api.url('/list-apps'))
      expect(await apps.json()).toEqual(['weather_agent'])
      const created = await fetch(api.url('/apps/weather_agent/users/u1/sessions/s1'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"state":{}}',
      })
      expect(await created.json()).toEqual({ echo: { method: 'POST', path: '/apps/weather_agent/users/u1/sessions/s1', body: '{"state":{}}' } })
      // fetch would resolve '//host/x' itself, so send the raw request line.
      const sneaky = await rawGet(target().baseUrl, '//example.com/steal')
      expect(JSON.parse(sneaky).echo.path).toBe('//example.com/steal')
    })
  })
}

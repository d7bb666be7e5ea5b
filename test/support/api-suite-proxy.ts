/**
 * Proxy mode, part of the API suite: evalstream between an ADK client and the agent stub. Most
 * tests ask for results inline (X-Evalstream-Results: inline) to see what was scored in the
 * stream itself; the default (the agent's frames only, results on /results) has its own tests.
 */
import { describe, expect, it } from 'vitest'
import { request as httpRequest } from 'node:http'
import { BREAK_AFTER, FAKE_OURS, SCENARIO_HEADER, STALL_AFTER } from './agent-stub.ts'
import { rawGet } from './duplex.ts'
import { readSse } from './sse-client.ts'
import type { apiClient, ApiTarget } from './api-suite.ts'
import { CONFIG, EFFICIENCY_RESULTS, MATCHING_CASE, WEATHER_SSE } from './weather-fixtures.ts'

/** The opt-in that interleaves our result frames (src/http/proxy/results-mode.ts). */
const INLINE = { 'x-evalstream-results': 'inline' }

const NEW_MESSAGE = { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] }

/** Settings every runtime under the API suite starts with: a short idle timeout, so a stalled agent is cut quickly. */
export const PROXY_TEST_ENV = { EVALSTREAM_AGENT_IDLE_TIMEOUT_MS: '2000' }

/** A POST over node:http, which (unlike fetch) lets a test send a `Connection` header naming other headers. */
function postRaw(url: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** Splits a raw SSE body into frames exactly as sent, and the agent's frames back out of it. */
const framesOf = (text: string) => text.split(/(?<=\n\n)/).filter((f) => f !== '')
const isOurs = (frame: string) => frame.startsWith('event: evalstream\n')
const ours = (text: string) => framesOf(text).filter(isOurs).map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)))

export function proxySuite(target: () => ApiTarget, api: ReturnType<typeof apiClient>): void {
  let n = 0
  const runSse = (sessionId: string, headers: Record<string, string> = {}) =>
    fetch(api.url('/run_sse'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...INLINE, ...headers },
      body: JSON.stringify(runBody(sessionId)),
    })
  const runBody = (sessionId: string) => ({ appName: 'weather_agent', userId: 'u1', sessionId, newMessage: NEW_MESSAGE, streaming: false })
  const agentFrames = WEATHER_SSE.split(/(?<=\n\n)/)
  const snapshotOf = async (id: string) => (await (await fetch(api.url(`/v1/sessions/${id}`))).json()) as any

  describe('proxy mode', () => {
    it('passes every agent frame through unchanged and interleaves evalstream frames after the frames that caused them', async () => {
      const adkSession = `adk-${Date.now().toString(36)}-${++n}`
      const res = await runSse(adkSession)
      expect(res.status).toBe(200)
      expect(res.headers.get('x-evalstream-session')).toBe(adkSession)
      const text = await res.text()
      expect(framesOf(text).filter((f) => !isOurs(f)).join('')).toBe(WEATHER_SSE)
      const results = ours(text)
      expect(results.map((r) => r.type)).toEqual(['invocation.started', 'criterion.result', 'criterion.result', ...EFFICIENCY_RESULTS])
      // invocation.started right after the first agent frame, the results right after the final answer.
      const frames = framesOf(text)
      expect(isOurs(frames[1]!)).toBe(true)
      expect(frames.slice(-2).every(isOurs)).toBe(true)
      expect(results.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7])
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
      expect(all.map((m) => m.event)).toEqual([
        'invocation.started',
        'criterion.result',
        'criterion.result',
        ...EFFICIENCY_RESULTS,
        'case.result',
      ])
    })

    it('answers 404 for an X-Evalstream-Session that does not exist', async () => {
      const res = await runSse('adk-x', { 'x-evalstream-session': 'never-created' })
      expect(res.status).toBe(404)
    })

    it('renames agent frames named evalstream to agent-evalstream, so only ours carry that name', async () => {
      const res = await runSse(`adk-forge-${++n}`, { [SCENARIO_HEADER]: 'evalstream' })
      const text = await res.text()
      expect(text).toContain(FAKE_OURS.replace('event: evalstream', 'event: agent-evalstream'))
      expect(ours(text).some((r) => r.data.forged)).toBe(false)
      expect(ours(text).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7])
    })

    it('scores every spelling of /run_sse an ADK server routes there (trailing slash, case, //, ;x)', async () => {
      for (const path of ['/run_sse/', '/RUN_SSE', '//run_sse', '/run_sse;x']) {
        // Joined as text: new URL('//run_sse', base) would read it as another host.
        const res = await fetch(`${target().baseUrl.replace(/\/+$/, '')}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...INLINE },
          body: JSON.stringify(runBody(`adk-spelling-${++n}`)),
        })
        const text = await res.text()
        expect(res.status, path).toBe(200)
        // The agent stub only answers /run_sse itself: its frames mean the call went there.
        expect(framesOf(text).filter((f) => !isOurs(f)).join(''), path).toBe(WEATHER_SSE)
        expect(ours(text).map((r) => r.type)[0], path).toBe('invocation.started')
      }
    })

    it('terminates an unterminated last agent frame before appending ours', async () => {
      const res = await runSse(`adk-unterminated-${++n}`, { [SCENARIO_HEADER]: 'unterminated' })
      const frames = framesOf(await res.text())
      // Every agent frame whole, the last one with the blank line it lacked, then our results.
      expect(frames.filter((f) => !isOurs(f)).join('')).toBe(WEATHER_SSE)
      expect(frames.slice(-2).every(isOurs)).toBe(true)
      expect(ours(frames.join('')).map((r) => r.type)).toEqual([
        'invocation.started',
        'criterion.result',
        'criterion.result',
        ...EFFICIENCY_RESULTS,
      ])
    })

    it('still delivers the results when the agent breaks off mid-stream, and records the failure as an error result', async () => {
      const id = `adk-break-${++n}`
      const res = await runSse(id, { [SCENARIO_HEADER]: 'break' })
      const text = await res.text()
      expect(framesOf(text).filter((f) => !isOurs(f))).toEqual(agentFrames.slice(0, BREAK_AFTER))
      const results = ours(text)
      expect(results.map((r) => r.type)).toEqual([
        'invocation.started',
        'error',
        'criterion.result',
        'criterion.result',
        ...EFFICIENCY_RESULTS,
      ])
      expect(results[1].data.message).toContain('broke off')
      expect((await snapshotOf(id)).last_seq).toBe(4 + EFFICIENCY_RESULTS.length)
      await api.end(id)
      const logged = await readSse(await api.results(id))
      expect(logged.map((m) => m.event)).toEqual([
        'invocation.started',
        'error',
        'criterion.result',
        'criterion.result',
        ...EFFICIENCY_RESULTS,
        'case.result',
      ])
    })

    it('cuts an agent that stalls mid-stream after the idle timeout, with the results and an error frame', async () => {
      const res = await runSse(`adk-stall-${++n}`, { [SCENARIO_HEADER]: 'stall' })
      const text = await res.text()
      expect(framesOf(text).filter((f) => !isOurs(f))).toEqual(agentFrames.slice(0, STALL_AFTER))
      const results = ours(text)
      expect(results.map((r) => r.type)).toEqual([
        'invocation.started',
        'error',
        'criterion.result',
        'criterion.result',
        ...EFFICIENCY_RESULTS,
      ])
      expect(results[1].data.message).toContain('sent nothing for 2000 ms (EVALSTREAM_AGENT_IDLE_TIMEOUT_MS)')
    })

    it('drops the headers named in Connection, both ways (RFC 9110 hop-by-hop)', async () => {
      const id = `adk-hop-${++n}`
      const res = await postRaw(
        api.url('/run_sse'),
        {
          'content-type': 'application/json',
          ...INLINE,
          connection: 'keep-alive, x-client-hop',
          'x-client-hop': 'client-secret',
          [SCENARIO_HEADER]: 'hop',
        },
        JSON.stringify(runBody(id)),
      )
      expect(res.status).toBe(200)
      expect(res.headers['x-agent-hop']).toBeUndefined()
      expect(ours(res.text)).toHaveLength(3 + EFFICIENCY_RESULTS.length)
      const sent = target().agentRequests().find((r) => r.path === '/run_sse' && r.body.includes(id)) as any
      expect(sent.headers[SCENARIO_HEADER]).toBe('hop')
      expect(sent.headers['x-client-hop']).toBeUndefined()
    })

    it('passes a run whose ADK session id is no valid evalstream id through unscored', async () => {
      const res = await runSse('../x')
      expect(res.headers.get('x-evalstream-note')).toContain('not scored')
      expect(await res.text()).toBe(WEATHER_SSE)
      const named = await runSse('fine', { 'x-evalstream-session': 'a:b/c' })
      expect(named.status).toBe(400)
    })

    it("forwards other ADK routes as is, and only to the agent's origin", async () => {
      const apps = await fetch(api.url('/list-apps'))
      expect(await apps.json()).toEqual(['weather_agent'])
      const created = await fetch(api.url('/apps/weather_agent/users/u1/sessions/s1'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"state":{}}',
      })
      expect(await created.json()).toEqual({
        echo: { method: 'POST', path: '/apps/weather_agent/users/u1/sessions/s1', body: '{"state":{}}' },
      })
      // fetch would resolve '//host/x' itself, so send the raw request line.
      const sneaky = await rawGet(target().baseUrl, '//example.com/steal')
      expect(JSON.parse(sneaky).echo.path).toBe('//example.com/steal')
    })
  })
}

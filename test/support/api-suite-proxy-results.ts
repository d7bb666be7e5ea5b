/**
 * Proxy mode, part of the API suite: by default a proxied /run_sse is exactly the agent stub's
 * bytes (what the stock ADK web UI must see), the run is still scored and its results are on
 * /v1/sessions/{id}/results; results come inline only for a client that asks, by header or by
 * query parameter, and the parameter never reaches the agent (the stub answers /run_sse only
 * at exactly that path, so a forwarded parameter would get its JSON echo instead of the stream).
 */
import { describe, expect, it } from 'vitest'
import { readSse } from './sse-client.ts'
import type { apiClient, ApiTarget } from './api-suite.ts'
import { EFFICIENCY_RESULTS, WEATHER_SSE } from './weather-fixtures.ts'

const RESULT_TYPES = ['invocation.started', 'criterion.result', 'criterion.result', ...EFFICIENCY_RESULTS]
const framesOf = (text: string) => text.split(/(?<=\n\n)/).filter((f) => f !== '')
const isOurs = (frame: string) => frame.startsWith('event: evalstream\n')
const oursTypes = (text: string) => framesOf(text).filter(isOurs).map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)).type)

export function proxyResultsSuite(target: () => ApiTarget, api: ReturnType<typeof apiClient>): void {
  let n = 0
  const nextId = (what: string) => `adk-${what}-${Date.now().toString(36)}-${++n}`
  const runSse = (path: string, sessionId: string, headers: Record<string, string> = {}) =>
    fetch(api.url(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        appName: 'weather_agent',
        userId: 'u1',
        sessionId,
        newMessage: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
        streaming: false,
      }),
    })
  /** Every result the session logged, case.result last: the session is ended, so the stream closes. */
  const logged = async (id: string) => {
    expect((await api.end(id)).status).toBe(200)
    return (await readSse(await api.results(id))).map((m) => m.event)
  }

  describe('proxy mode: where the results go', () => {
    it("by default, the client gets exactly the agent's bytes; the run is scored and its results are on /results", async () => {
      const id = nextId('plain')
      const res = await runSse('/run_sse', id)
      expect(res.status).toBe(200)
      expect(res.headers.get('x-evalstream-session')).toBe(id)
      expect(await res.text()).toBe(WEATHER_SSE)
      expect(await logged(id)).toEqual([...RESULT_TYPES, 'case.result'])
    })

    it('with X-Evalstream-Results: inline, the results follow the frames that caused them', async () => {
      const id = nextId('header')
      const text = await (await runSse('/run_sse', id, { 'x-evalstream-results': 'inline' })).text()
      expect(framesOf(text).filter((f) => !isOurs(f)).join('')).toBe(WEATHER_SSE)
      expect(oursTypes(text)).toEqual(RESULT_TYPES)
      expect(await logged(id)).toEqual([...RESULT_TYPES, 'case.result'])
    })

    it('with ?evalstream_results=inline, the same, and the agent is called without the parameter', async () => {
      const id = nextId('param')
      const text = await (await runSse('/run_sse?evalstream_results=inline', id)).text()
      expect(framesOf(text).filter((f) => !isOurs(f)).join('')).toBe(WEATHER_SSE)
      expect(oursTypes(text)).toEqual(RESULT_TYPES)
      const sent = target().agentRequests().find((r) => r.body.includes(id))
      expect(sent?.path).toBe('/run_sse')
    })

    it('an unknown value is a 400 problem naming the header or parameter and the accepted values', async () => {
      for (
        const [path, headers, named] of [
          ['/run_sse', { 'x-evalstream-results': 'all' }, "header X-Evalstream-Results is 'all'"],
          ['/run_sse?evalstream_results=1', {}, "query parameter evalstream_results is '1'"],
        ] as const
      ) {
        const id = nextId('bad')
        const res = await runSse(path, id, headers)
        expect(res.status).toBe(400)
        expect(res.headers.get('content-type')).toBe('application/problem+json')
        const problem = (await res.json()) as { detail: string; accepted: string[] }
        expect(problem.detail).toBe(`${named}; accepted values are 'none' or 'inline'`)
        expect(problem.accepted).toEqual(['none', 'inline'])
        expect(target().agentRequests().some((r) => r.body.includes(id))).toBe(false)
      }
    })
  })
}

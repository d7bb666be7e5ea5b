/**
 * A proxied /run_sse carries exactly the agent's frames unless the client asks for results inline
 * (`X-Evalstream-Results: inline` or `?evalstream_results=inline`); either way the run is scored
 * and its results are on the session's /results. In process, against a fetch double that records
 * the URL the agent was called with.
 */
import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../../src/engine/session-engine.ts'
import { createApp } from '../../../../src/http/app.ts'
import type { AppDeps } from '../../../../src/http/deps.ts'
import { RESULTS_HEADER, resultsModeOf, withoutResultsParam } from '../../../../src/http/proxy/results-mode.ts'
import { DEFAULT_LIMITS } from '../../../../src/ingest/index.ts'
import { memorySessionStore } from '../../../../src/session/store.ts'
import { CONFIG, EFFICIENCY_RESULTS, WEATHER_SSE } from '../../../support/weather-fixtures.ts'

const framesOf = (text: string) => text.split(/(?<=\n\n)/).filter((f) => f !== '')
const isOurs = (frame: string) => frame.startsWith('event: evalstream\n')
const RESULT_TYPES = ['invocation.started', 'criterion.result', 'criterion.result', ...EFFICIENCY_RESULTS]
const LOGGED_TYPES = [...RESULT_TYPES, 'case.result']

function setup(agentSse = WEATHER_SSE, limits = DEFAULT_LIMITS) {
  const called: string[] = []
  const store = memorySessionStore()
  const deps: AppDeps = {
    store,
    createEngine: (o) => createSessionEngine(o),
    defaultConfig: CONFIG,
    agentUrl: 'http://agent.test',
    fetch: (async (input: RequestInfo | URL) => {
      called.push(String(input))
      return new Response(agentSse, { headers: { 'content-type': 'text/event-stream' } })
    }) as typeof fetch,
    limits,
  }
  const app = createApp(deps)
  const runSse = async (path: string, sessionId: string, headers: Record<string, string> = {}) => {
    const body = { appName: 'weather_agent', userId: 'u1', sessionId, newMessage: { role: 'user', parts: [{ text: 'hi' }] } }
    const res = await app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
    return { res, text: await res.text() }
  }
  /** The session's /results, read whole: the session is ended first, so the stream closes after case.result. */
  const resultTypes = async (id: string) => {
    await app.request(`/v1/sessions/${id}/end`, { method: 'POST' })
    const res = await app.request(`/v1/sessions/${id}/results`)
    return framesOf(await res.text()).map((f) => /^event: (.*)$/m.exec(f)?.[1]).filter((t) => t !== undefined)
  }
  return { runSse, called, resultTypes, session: (id: string) => store.get(id, deps.createEngine) }
}

describe('a proxied /run_sse by default', () => {
  it("is exactly the agent's bytes, while the run is scored and its results are on /results", async () => {
    const { runSse, resultTypes, called } = setup()
    const { res, text } = await runSse('/run_sse', 'plain-1')
    expect(res.headers.get('x-evalstream-session')).toBe('plain-1')
    expect(text).toBe(WEATHER_SSE)
    expect(called).toEqual(['http://agent.test/run_sse'])
    expect(await resultTypes('plain-1')).toEqual(LOGGED_TYPES)
  })

  it('passes an unterminated last frame as the agent sent it, and still scores it', async () => {
    const unterminated = WEATHER_SSE.replace(/\n\n$/, '')
    const { runSse, resultTypes } = setup(unterminated)
    expect((await runSse('/run_sse', 'plain-2')).text).toBe(unterminated)
    expect(await resultTypes('plain-2')).toEqual(LOGGED_TYPES)
  })

  it('tells the client nothing of a session that stopped at its event limit, and passes every agent frame', async () => {
    const { runSse, session } = setup(WEATHER_SSE, { ...DEFAULT_LIMITS, maxEventsPerSession: 2 })
    expect((await runSse('/run_sse', 'plain-3')).text).toBe(WEATHER_SSE)
    expect((await session('plain-3'))!.recordedEvents).toBe(2)
  })
})

describe('results inline, when asked for', () => {
  it.each([
    ['header', '/run_sse', { [RESULTS_HEADER]: 'inline' }, 'http://agent.test/run_sse'],
    [
      'query parameter (stripped before the agent)',
      '/run_sse?x=1&evalstream_results=inline&y=%20',
      {},
      'http://agent.test/run_sse?x=1&y=%20',
    ],
    ['both, any case', '/run_sse?evalstream%5Fresults=INLINE', { [RESULTS_HEADER]: ' Inline ' }, 'http://agent.test/run_sse'],
  ])('by %s', async (_how, path, headers, agentUrl) => {
    const { runSse, called, resultTypes } = setup()
    const id = `inline-${called.length}-${path.length}-${Object.keys(headers).length}`
    const { text } = await runSse(path, id, headers)
    const frames = framesOf(text)
    expect(frames.filter((f) => !isOurs(f)).join('')).toBe(WEATHER_SSE)
    const ours = frames.filter(isOurs).map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)).type)
    expect(ours).toEqual(RESULT_TYPES)
    expect(called).toEqual([agentUrl])
    expect(await resultTypes(id)).toEqual(LOGGED_TYPES)
  })

  it("'none' asks for the default", async () => {
    const { runSse } = setup()
    expect((await runSse('/run_sse?evalstream_results=none', 'none-1', { [RESULTS_HEADER]: 'none' })).text).toBe(WEATHER_SSE)
  })

  it('an unknown value is a 400 problem naming the header or parameter and the accepted values; the agent is not called', async () => {
    const { runSse, called } = setup()
    for (
      const [path, headers, named] of [
        ['/run_sse', { [RESULTS_HEADER]: 'yes' }, "header X-Evalstream-Results is 'yes'"],
        ['/run_sse?evalstream_results=', {}, "query parameter evalstream_results is ''"],
        [
          '/RUN_SSE/?evalstream_results=inline',
          { [RESULTS_HEADER]: 'none' },
          "header X-Evalstream-Results is 'none' but query parameter evalstream_results is 'inline'",
        ],
      ] as const
    ) {
      const { res, text } = await runSse(path, 'bad-1', headers)
      expect(res.status, path).toBe(400)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
      const problem = JSON.parse(text)
      expect(problem.detail, path).toContain(named)
      expect(problem).toMatchObject({ header: 'X-Evalstream-Results', parameter: 'evalstream_results', accepted: ['none', 'inline'] })
    }
    expect(problem400Detail(resultsModeOf('x'.repeat(100), ''))).toContain(`'${'x'.repeat(40)}…'; accepted values are 'none' or 'inline'`)
    expect(called).toEqual([])
  })
})

describe('resultsModeOf and withoutResultsParam', () => {
  it('reads the mode from the header and every instance of the parameter', () => {
    expect(resultsModeOf(undefined, '')).toEqual({ ok: true, mode: 'none' })
    expect(resultsModeOf(undefined, '?evalstream_results=inline&evalstream_results=Inline')).toEqual({ ok: true, mode: 'inline' })
    expect(resultsModeOf('inline', '?evalstream_results=none').ok).toBe(false)
    expect(resultsModeOf('inline, inline', '').ok).toBe(false)
  })

  it('drops every instance of the parameter and keeps the rest as written', () => {
    expect(withoutResultsParam('')).toBe('')
    expect(withoutResultsParam('?a=1&b=%20+c')).toBe('?a=1&b=%20+c')
    expect(withoutResultsParam('?evalstream_results=inline')).toBe('')
    expect(withoutResultsParam('?a&evalstream+results=1&evalstream%5fresults=x&evalstream_results&z=%ZZ')).toBe(
      '?a&evalstream+results=1&z=%ZZ',
    )
  })
})

function problem400Detail(choice: ReturnType<typeof resultsModeOf>): string {
  return choice.ok ? '' : choice.detail
}

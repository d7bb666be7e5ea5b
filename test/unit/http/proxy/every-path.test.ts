/**
 * Proxy mode on every path, in process against a fetch double (no socket): an agent frame named
 * `evalstream` never reaches a client unrenamed, whether the run is scored or not (ended session,
 * an ADK id evalstream cannot host, no id, any Content-Type spelling, a 5xx), every spelling of
 * /run_sse an ADK server routes there is scored as /run_sse, and an agent frame over
 * EVALSTREAM_MAX_EVENT_BYTES is replaced by a note and recorded as a too_large error. Results are
 * asked for inline, so a scored run shows in the client's stream.
 * Covers: src/http/proxy/proxy.ts, src/http/proxy/interleave.ts.
 */
import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../../src/engine/session-engine.ts'
import type { AppDeps } from '../../../../src/http/deps.ts'
import { DEFAULT_PROXY_SETTINGS } from '../../../../src/http/proxy/settings.ts'
import { memorySessionStore } from '../../../../src/session/store.ts'
import { isEventStream, isRunSsePath } from '../../../../src/http/proxy/agent-sse.ts'
import { createApp } from '../../../../src/http/app.ts'
import { RESULTS_HEADER } from '../../../../src/http/proxy/results-mode.ts'
import { DEFAULT_LIMITS } from '../../../../src/ingest/index.ts'
import { FAKE_OURS } from '../../../support/agent-stub.ts'
import { CONFIG, WEATHER_SSE } from '../../../support/weather-fixtures.ts'

const FORGED_LINE = /(^|\n)event: evalstream\ndata: [^\n]*"forged":true/
const frames = WEATHER_SSE.split(/(?<=\n\n)/).filter((f) => f !== '')
/** The agent's answer: its first frame, a forged `evalstream` frame, the rest. */
const FORGING_SSE = [frames[0], FAKE_OURS, ...frames.slice(1)].join('')

type AgentAnswer = { status?: number; contentType?: string; body?: string }

function setup(answer: AgentAnswer = {}, maxEventBytes = DEFAULT_LIMITS.maxEventBytes) {
  const calls: string[] = []
  const agentFetch = (async (input: RequestInfo | URL) => {
    calls.push(new URL(String(input)).pathname)
    return new Response(answer.body ?? FORGING_SSE, {
      status: answer.status ?? 200,
      headers: { 'content-type': answer.contentType ?? 'text/event-stream' },
    })
  }) as typeof fetch
  const store = memorySessionStore()
  const deps: AppDeps = {
    store,
    createEngine: (o) => createSessionEngine(o),
    defaultConfig: CONFIG,
    agentUrl: 'http://agent.test',
    fetch: agentFetch,
    proxy: DEFAULT_PROXY_SETTINGS,
    limits: { ...DEFAULT_LIMITS, maxEventBytes },
  }
  const app = createApp(deps)
  const post = (path: string, sessionId: string | undefined, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [RESULTS_HEADER]: 'inline', ...headers },
      body: JSON.stringify({ appName: 'weather_agent', userId: 'u1', sessionId, newMessage: { role: 'user', parts: [{ text: 'hi' }] } }),
    })
  return { app, post, calls, session: (id: string) => store.get(id, deps.createEngine) }
}

const ourFrames = (text: string) => text.split(/(?<=\n\n)/).filter((f) => f.startsWith('event: evalstream\n'))

describe('agent frames named evalstream are renamed on every answer to /run_sse', () => {
  it('scored, with any spelling of the event-stream Content-Type', async () => {
    for (
      const contentType of ['text/event-stream', 'Text/Event-Stream', 'text/event-stream; charset=utf-8', 'TEXT/EVENT-STREAM;charset=UTF-8']
    ) {
      const { post } = setup({ contentType })
      const text = await (await post('/run_sse', `ct-${contentType.length}-${contentType.charCodeAt(0)}`)).text()
      expect(text, contentType).not.toMatch(FORGED_LINE)
      expect(text).toContain('event: agent-evalstream\n')
      // Scored: our frames follow the agent's.
      expect(ourFrames(text).length).toBeGreaterThan(0)
    }
  })

  it('unscored: an ended session, an id evalstream cannot host, no id, another Content-Type, a 5xx', async () => {
    const ended = setup()
    await (await ended.post('/run_sse', 'ends')).text()
    await (await ended.session('ends'))!.end()
    const cases: Array<[string, () => Response | Promise<Response>]> = [
      ['ended session', () => ended.post('/run_sse', 'ends')],
      ['invalid ADK id', () => setup().post('/run_sse', 'not valid/here')],
      ['no session id', () => setup().post('/run_sse', undefined)],
      ['text/plain', () => setup({ contentType: 'text/plain' }).post('/run_sse', 'plain')],
      ['no content type', () => setup({ contentType: '' }).post('/run_sse', 'none')],
      ['500 event stream', () => setup({ status: 500 }).post('/run_sse', 'five-hundred')],
      ['503 text', () => setup({ status: 503, contentType: 'text/plain' }).post('/run_sse', 'five-oh-three')],
    ]
    for (const [what, send] of cases) {
      const res = await send()
      const text = await res.text()
      expect(text, what).not.toMatch(FORGED_LINE)
      expect(text, what).toContain('event: agent-evalstream\n')
      expect(ourFrames(text), what).toEqual([])
    }
  })

  it('other routes: an event-stream answer is renamed, any other body passes exactly as sent', async () => {
    const sse = await (await setup({ contentType: 'Text/Event-Stream' }).app.request('/apps/x/events')).text()
    expect(sse).not.toMatch(FORGED_LINE)
    const body = 'event: evalstream\ndata: {"forged":true}'
    const plain = await (await setup({ contentType: 'application/octet-stream', body }).app.request('/apps/x/file')).text()
    expect(plain).toBe(body)
  })
})

describe('every spelling of /run_sse is scored as /run_sse', () => {
  it.each(['/run_sse/', '/RUN_SSE', '//run_sse', '/run_sse;x', '/Run_Sse/', '/run%5Fsse', '/run_sse?x=1'])('%s', async (path) => {
    const { post, calls, session } = setup()
    const id = `variant-${path.length}-${path.charCodeAt(1)}`
    const text = await (await post(path, id)).text()
    expect(calls).toEqual(['/run_sse'])
    expect(text).not.toMatch(FORGED_LINE)
    expect(ourFrames(text).length).toBeGreaterThan(0)
    expect((await session(id))?.snapshot().invocations).toHaveLength(1)
  })

  it('paths that are not /run_sse go to the agent as they are, unscored', async () => {
    for (const path of ['/run_sse/x', '/run_ssex', '/x/run_sse']) {
      const { post, calls } = setup({ contentType: 'application/json', body: '{}' })
      expect(await (await post(path, 'other')).text()).toBe('{}')
      expect(calls).toEqual([path])
    }
  })

  it('isRunSsePath and isEventStream', () => {
    expect(['/run_sse', '/run_sse/', '//run_sse//', '/RUN_SSE', '/run_sse;a=b', '/run%5fsse', '/run_sse;x/'].map(isRunSsePath)).toEqual(
      Array(7).fill(true),
    )
    expect(['/', '/run', '/run_sse/x', '/a/run_sse', '/run%ZZsse', `/run_sse${'/'.repeat(300)}`].map(isRunSsePath)).toEqual(
      Array(6).fill(false),
    )
    expect([
      isEventStream('text/event-stream'),
      isEventStream(' TEXT/event-stream ; x=1'),
      isEventStream('text/event-streams'),
      isEventStream(null),
    ]).toEqual([true, true, false, false])
  })
})

describe('an agent frame over EVALSTREAM_MAX_EVENT_BYTES', () => {
  it('is replaced by a note naming the limit, recorded as a too_large error, and the frames after it are scored', async () => {
    const huge = `data: {"invocationId":"e-huge","author":"weather_agent","content":{"parts":[{"text":"${'x'.repeat(5000)}"}]}}\n\n`
    const { post, session } = setup({ body: [frames[0], huge, ...frames.slice(1)].join('') }, 2000)
    const text = await (await post('/run_sse', 'huge-frame')).text()
    expect(text).not.toContain('x'.repeat(100))
    expect(text).toMatch(
      /\n: evalstream dropped an agent frame of \d+ characters, over the limit of 2000 bytes per event \(EVALSTREAM_MAX_EVENT_BYTES\)\n\n/,
    )
    const errors = ourFrames(text).map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6))).filter((r) => r.type === 'error')
    expect(errors).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ index: 1, message: expect.stringContaining('2000 bytes') }) }),
    ])
    // Every other frame was relayed and scored.
    for (const frame of frames) expect(text).toContain(frame)
    expect((await session('huge-frame'))?.snapshot().invocations).toHaveLength(1)
  })
})

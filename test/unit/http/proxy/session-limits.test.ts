/**
 * Proxy mode holds the same per-session limits as an events upload (docs/limits.md): the session's
 * feed counts events and invocations whichever way they came. In process: the agent is a fetch
 * double answering a recorded /run_sse stream; results asked for inline, so the client hears why.
 * Covers: src/http/proxy/proxy.ts.
 */
import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../../src/engine/session-engine.ts'
import { createApp } from '../../../../src/http/app.ts'
import { RESULTS_HEADER } from '../../../../src/http/proxy/results-mode.ts'
import type { AppDeps } from '../../../../src/http/deps.ts'
import { DEFAULT_LIMITS, type Limits } from '../../../../src/ingest/index.ts'
import { memorySessionStore } from '../../../../src/session/store.ts'
import { CONFIG, WEATHER_EVENTS, WEATHER_SSE } from '../../../support/weather-fixtures.ts'

const framesOf = (text: string) => text.split(/(?<=\n\n)/).filter((f) => f !== '')
const ours = (text: string) =>
  framesOf(text)
    .filter((f) => f.startsWith('event: evalstream\n'))
    .map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)))

/** The recorded stream with every invocation id replaced, so a second turn opens a new invocation. */
function turn(invocationId: string): string {
  return WEATHER_SSE.replace(/"invocationId":\s*"[^"]*"/g, `"invocationId":"${invocationId}"`)
}

function setup(limits: Partial<Limits>, streams: string[]) {
  const store = memorySessionStore()
  let calls = 0
  const deps: AppDeps = {
    store,
    createEngine: (o) => createSessionEngine(o),
    defaultConfig: CONFIG,
    agentUrl: 'http://agent.test',
    fetch: async () => new Response(streams[calls++ % streams.length], { headers: { 'content-type': 'text/event-stream' } }),
    limits: { ...DEFAULT_LIMITS, ...limits },
  }
  const app = createApp(deps)
  const runSse = async (sessionId: string) => {
    const body = { appName: 'weather_agent', userId: 'u1', sessionId, newMessage: { role: 'user', parts: [{ text: 'hi' }] } }
    const res = await app.request('/run_sse', {
      method: 'POST',
      headers: { 'content-type': 'application/json', [RESULTS_HEADER]: 'inline' },
      body: JSON.stringify(body),
    })
    return { status: res.status, text: await res.text() }
  }
  return { runSse, session: (id: string) => store.get(id, deps.createEngine) }
}

describe('proxy mode: per-session limits', () => {
  it('EVALSTREAM_MAX_EVENTS_PER_SESSION: the session stops at the limit, the client hears why, the agent frames still pass', async () => {
    const events = WEATHER_EVENTS.length
    expect(events).toBeGreaterThan(3)
    const { runSse, session } = setup({ maxEventsPerSession: 3 }, [WEATHER_SSE])
    const { status, text } = await runSse('full-1')
    expect(status).toBe(200)
    // Every agent frame reached the client unchanged.
    expect(framesOf(text).filter((f) => !f.startsWith('event: evalstream\n')).join('')).toBe(framesOf(WEATHER_SSE).join(''))
    const stopped = ours(text).filter((r) => r.data?.kind === 'session_stopped')
    expect(stopped).toEqual([
      {
        type: 'error',
        data: {
          kind: 'session_stopped',
          message: expect.stringContaining('(EVALSTREAM_MAX_EVENTS_PER_SESSION=3)'),
          limit: { name: 'EVALSTREAM_MAX_EVENTS_PER_SESSION', value: 3 },
        },
      },
    ])
    const hosted = (await session('full-1'))!
    expect(hosted.recordedEvents).toBe(3)
    // The next turn of the same session takes nothing more.
    const again = await runSse('full-1')
    expect(ours(again.text).filter((r) => r.data?.kind === 'session_stopped')).toHaveLength(1)
    expect(hosted.recordedEvents).toBe(3)
  })

  it('EVALSTREAM_MAX_INVOCATIONS_PER_SESSION: the event opening one more invocation is rejected with its path', async () => {
    const { runSse, session } = setup({ maxInvocationsPerSession: 1 }, [turn('inv-a'), turn('inv-b')])
    await runSse('inv-1')
    const second = await runSse('inv-1')
    const rejected = ours(second.text).filter((r) => r.type === 'error' && r.data?.kind === 'rejected_event')
    expect(rejected.length).toBeGreaterThan(0)
    expect(rejected[0].data).toMatchObject({ path: '$.invocationId', message: expect.stringContaining("opens invocation 'inv-b'") })
    expect((await session('inv-1'))!.invocationCount).toBe(1)
  })

  it('EVALSTREAM_MAX_EVENT_BYTES holds for proxied events too (the configured value, not the default)', async () => {
    const { runSse } = setup({ maxEventBytes: 200 }, [WEATHER_SSE])
    const { text } = await runSse('bytes-1')
    const rejected = ours(text).filter((r) => r.type === 'error' && r.data?.kind === 'rejected_event')
    expect(rejected.length).toBeGreaterThan(0)
    expect(rejected[0].data.message).toMatch(/200/)
  })
})

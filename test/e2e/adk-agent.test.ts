/**
 * End-to-end: a REAL `adk api_server` (ADK for JavaScript 2.0.0) with the offline weather agent.
 * Asserts the /run_sse shape the rest of evalstream relies on, in both streaming modes and across
 * two invocations of one session, and that the live agent agrees with the recorded samples and
 * with the hand-made eval set in test/fixtures. Needs: npm install --prefix test/e2e/agent.
 */
import { readFileSync } from 'node:fs'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AdkEvent, isFinalResponse } from '../../src/adk/event.ts'
import { type AdkAgent, startAdkAgent } from '../support/adk-agent.ts'
import { readShared } from '../support/shared-data.ts'
import { finalAnswerChunks } from './agent/weather-data.ts'

const APP = 'weather_agent'
const SCRIPTED_APP = 'scripted_weather_agent'
const USER = 'e2e-user'
const ADK_CALL_ID = /^adk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const EVALSET = JSON.parse(readFileSync(new URL('../fixtures/weather.evalset.json', import.meta.url), 'utf8'))

type Json = Record<string, any>

let agent: AdkAgent
beforeAll(async () => {
  agent = await startAdkAgent()
})
afterAll(async () => {
  await agent?.stop()
})

async function createSession(sessionId: string, app = APP): Promise<Json> {
  const res = await fetch(`${agent.url}/apps/${app}/users/${USER}/sessions/${sessionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ state: {} }),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Json
}

/** POST /run_sse and collect every SSE `data:` payload, parsed as JSON, in arrival order. */
async function runSse(sessionId: string, text: string, streaming: boolean, app = APP): Promise<Json[]> {
  const res = await fetch(`${agent.url}/run_sse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ appName: app, userId: USER, sessionId, newMessage: { role: 'user', parts: [{ text }] }, streaming }),
  })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
  const reader = res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader()
  const events: Json[] = []
  for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(JSON.parse(r.value.data))
  return events
}

const parts = (e: Json): Json[] => e.content?.parts ?? []
const calls = (events: Json[]) => events.flatMap((e) => parts(e).filter((p) => p.functionCall).map((p) => p.functionCall))
const responses = (events: Json[]) => events.flatMap((e) => parts(e).filter((p) => p.functionResponse).map((p) => p.functionResponse))
const texts = (events: Json[]) => events.filter((e) => parts(e).some((p) => typeof p.text === 'string'))

/**
 * Checks shared by both modes and both agents: one invocation, call ids (ADK's own unless the model
 * gave one), tool results authored by the agent with role user and the ids of their calls.
 */
function expectToolRound(events: Json[], city: string, app = APP, callIds: Array<string | RegExp> = [ADK_CALL_ID, ADK_CALL_ID]): void {
  expect(events.some((e) => 'error' in e)).toBe(false)
  expect(new Set(events.map((e) => e.invocationId)).size).toBe(1)
  expect(events[0]!.invocationId).toMatch(/^e-/)
  for (const e of events) {
    expect(e.author).toBe(app)
    expect(Number.isInteger(e.timestamp) && e.timestamp > 1e12).toBe(true) // epoch milliseconds
    expect(AdkEvent.safeParse(e).success).toBe(true)
  }
  const made = calls(events)
  expect(made.map((c) => [c.name, c.args])).toEqual([['get_weather', { city }], ['get_time', { city }]])
  made.forEach((c, i) => expect(c.id).toMatch(callIds[i]!))
  expect(responses(events).map((r) => [r.id, r.name])).toEqual(made.map((c) => [c.id, c.name]))
  for (const e of events.filter((e) => parts(e).some((p) => p.functionResponse))) {
    expect(e.content.role).toBe('user')
    expect(parts(e).every((p) => p.functionResponse)).toBe(true)
  }
  for (const e of events.filter((e) => parts(e).some((p) => p.functionCall))) expect(e.content.role).toBe('model')
}

/** The one event evalstream must take as the final response: final per ADK's rule and with text. */
function finalText(events: Json[]): string {
  const finals = events.filter((e) => isFinalResponse(AdkEvent.parse(e)) && e.content)
  expect(finals).toHaveLength(1)
  expect(finals[0]).toBe(events.at(-1))
  return parts(finals[0]!).map((p) => p.text).join('')
}

describe('ADK for JavaScript api_server with the offline weather agent', () => {
  it('serves the weather app', async () => {
    const res = await fetch(`${agent.url}/list-apps`)
    expect(await res.json()).toContain(APP)
  })

  it('streaming=false: call, result, call, result, final text, no partials', async () => {
    await createSession('nostream')
    const before = agent.gemini!.calls.length
    const events = await runSse('nostream', 'Weather and time in Paris?', false)
    expectToolRound(events, 'Paris')
    expect(events).toHaveLength(5)
    expect(events.some((e) => e.partial === true)).toBe(false)
    expect(finalText(events)).toBe(finalAnswerChunks('Paris').join(''))
    expect(agent.gemini!.calls.slice(before).map((c) => c.stream)).toEqual([false, false, false])
    expect(agent.gemini!.calls.slice(before).every((c) => c.apiKey === 'fake-key')).toBe(true)
  })

  it('streaming=true: partial chunks, then the full text once with partial=false', async () => {
    await createSession('stream')
    const before = agent.gemini!.calls.length
    const events = await runSse('stream', 'Weather and time in Paris?', true)
    expectToolRound(events, 'Paris')
    const textEvents = texts(events)
    const partials = textEvents.filter((e) => e.partial === true)
    expect(partials.map((e) => parts(e)[0]!.text)).toEqual(finalAnswerChunks('Paris'))
    expect(textEvents.at(-1)!.partial).toBe(false)
    expect(textEvents.indexOf(textEvents.at(-1)!)).toBe(partials.length) // the full text comes last
    expect(finalText(events)).toBe(partials.map((e) => parts(e)[0]!.text).join(''))
    // ADK quirk the ingest stage must tolerate: after each tool result, a model event without content.
    const empty = events.map((e, i) => [e, i] as const).filter(([e]) => !e.content)
    expect(empty).toHaveLength(2)
    for (const [e, i] of empty) {
      expect(e.partial).toBe(false)
      expect(parts(events[i - 1]!).some((p) => p.functionResponse)).toBe(true)
    }
    expect(agent.gemini!.calls.slice(before).map((c) => c.stream)).toEqual([true, true, true])
  })

  it('a second turn in the same session is a new invocation with its own tool round', async () => {
    await createSession('two-turns')
    const first = await runSse('two-turns', 'Weather and time in Paris?', false)
    const second = await runSse('two-turns', 'And in Tokyo?', true)
    expectToolRound(second, 'Tokyo')
    expect(finalText(second)).toBe(finalAnswerChunks('Tokyo').join(''))
    expect(second[0]!.invocationId).not.toBe(first[0]!.invocationId)
    const res = await fetch(`${agent.url}/apps/${APP}/users/${USER}/sessions/two-turns`)
    const session = (await res.json()) as Json
    const stored = session.events as Json[]
    // The session keeps both user messages and both invocations (partial chunks are not stored).
    expect(stored.filter((e) => e.author === 'user').map((e) => parts(e)[0]!.text)).toEqual(['Weather and time in Paris?', 'And in Tokyo?'])
    expect(new Set(stored.map((e) => e.invocationId))).toEqual(new Set([first[0]!.invocationId, second[0]!.invocationId]))
  })

  it("scripted BaseLlm agent: the model's own call id is kept, the other call gets an ADK id", async () => {
    await createSession('scripted', SCRIPTED_APP)
    const events = await runSse('scripted', 'Weather and time in Paris?', true, SCRIPTED_APP)
    expectToolRound(events, 'Paris', SCRIPTED_APP, [/^call-weather-1$/, ADK_CALL_ID])
    expect(texts(events).filter((e) => e.partial === true)).toHaveLength(finalAnswerChunks('Paris').length)
    expect(finalText(events)).toBe(finalAnswerChunks('Paris').join(''))
    expect(events.at(-1)!.turnComplete).toBe(true)
  })

  // The captures in shared/samples were made with agents like these; the live runs must not drift
  // from them in anything but ids, times and agent names.
  it.each([
    ['adk-js-weather.sse', APP, false],
    ['adk-js-weather-streaming.sse', APP, true],
    ['adk-js-weather-scripted-streaming.sse', SCRIPTED_APP, true],
  ])('produces the event shapes of the recorded sample %s', async (file, app, streaming) => {
    const sessionId = `vs-${file}`
    await createSession(sessionId, app)
    const live = await runSse(sessionId, 'Weather and time in Paris?', streaming, app)
    const recorded = readShared('samples', file)
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Json)
    expect(live.map(shapeOf)).toEqual(recorded.map(shapeOf))
  })

  it('matches the expected trajectory and reference of test/fixtures/weather.evalset.json', async () => {
    const expected = EVALSET.eval_cases[0].conversation[0]
    await createSession('vs-evalset')
    const live = await runSse('vs-evalset', expected.user_content.parts[0].text, false)
    expect(calls(live).map((c) => ({ name: c.name, args: c.args }))).toEqual(expected.intermediate_data.tool_uses)
    expect(responses(live).map((r) => ({ name: r.name, response: r.response }))).toEqual(expected.intermediate_data.tool_responses)
    // Close to, not equal to, the model's answer: response_match_score must be a real ROUGE-1 case.
    expect(expected.final_response.parts[0].text).not.toBe(finalText(live))
  })

  it('stop() ends the server and its process group', async () => {
    const { url, pid } = agent
    await agent.stop()
    await expect(fetch(`${url}/list-apps`)).rejects.toThrow()
    expect(() => process.kill(-pid, 0)).toThrow(/ESRCH/)
  })
})

describe('startAdkAgent failures', () => {
  // A start that cannot finish in time (200 ms is far below the server's boot time) must fail with
  // the reason and the server's output, and leave no server behind.
  it('rejects with the reason and the server output when the server is not ready in time', async () => {
    const started = startAdkAgent({ startTimeoutMs: 200 })
    await expect(started).rejects.toThrow(/did not start on http:\/\/127\.0\.0\.1:\d+: timed out after 200 ms[\s\S]*server output/)
  })
})

/** An event with every id, time and name masked: what must not differ between two agents' runs. */
function shapeOf(event: Json): unknown {
  const mask = (value: unknown, key: string): unknown => {
    if (['id', 'invocationId', 'timestamp', 'author'].includes(key)) return typeof value
    if (Array.isArray(value)) return value.map((v) => mask(v, ''))
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, mask(v, k)]))
    }
    return value
  }
  return mask(event, '')
}

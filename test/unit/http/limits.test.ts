/**
 * Limits and hostile input, in process (`app.request()`): nothing crashes, nothing poisons a
 * session, every refusal names its limit.
 */
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { REFUSED_BODY_DRAIN_BYTES } from '../../../src/http/read-body.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv, type Env } from '../../../src/config/setup.ts'
import { readSse } from '../../support/sse-client.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { CONFIG, MATCHING_CASE, WEATHER_EVENTS, weatherCase } from '../../support/weather-fixtures.ts'
import { crashBody, deepArgsEvent, deepCaseBody, nestedArrays } from '../../support/hostile-bodies.ts'

function appWith(env: Env = {}) {
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...env }, { store: memorySessionStore() })
  if (!setup.ok) throw new Error(setup.error)
  const app = createApp(setup.deps)
  const json = async (res: Response) => (await res.json()) as Record<string, any>
  return {
    app,
    json,
    create: (body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
      app.request('/v1/sessions', { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) }),
    events: (id: string, body: BodyInit, type = 'application/json', headers: Record<string, string> = {}) =>
      app.request(`/v1/sessions/${id}/events`, { method: 'POST', headers: { 'content-type': type, ...headers }, body }),
    /** GET and end must keep working: the proof that a session was not poisoned. */
    async healthy(id: string) {
      const got = await app.request(`/v1/sessions/${id}`)
      expect(got.status).toBe(200)
      const ended = await app.request(`/v1/sessions/${id}/end`, { method: 'POST' })
      expect(ended.status).toBe(200)
      return json(ended)
    },
  }
}

const ndjson = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n')

describe('hostile event bodies', () => {
  it('the crash body: the 10,000-deep element is rejected with its index, its neighbours kept (202 and streamed)', async () => {
    for (const accept of ['application/json', 'text/event-stream']) {
      const api = appWith()
      expect((await api.create({ session_id: 's', eval_config: CONFIG })).status).toBe(201)
      const res = await api.events('s', crashBody(), 'application/json', { accept })
      let summary: Record<string, any>
      if (accept === 'text/event-stream') {
        const messages = await readSse(res)
        summary = messages.find((m) => m.event === 'upload.summary')!.data as Record<string, any>
      } else {
        expect(res.status).toBe(202)
        summary = await api.json(res)
      }
      expect(summary.accepted).toBe(2)
      expect(summary.rejected).toEqual([
        { index: 1, path: `$${'[0]'.repeat(100)}`, message: expect.stringContaining('EVALSTREAM_MAX_JSON_DEPTH=100') },
      ])
      expect(summary.error).toBeUndefined()
      await api.healthy('s')
    }
  })

  it('functionCall.args nested 100,000 levels is rejected at ingest; GET and end keep answering', async () => {
    const api = appWith()
    await api.create({ session_id: 's', eval_config: CONFIG, eval_case: MATCHING_CASE })
    const body = [JSON.stringify(WEATHER_EVENTS[0]), deepArgsEvent(), JSON.stringify(WEATHER_EVENTS[1])].join('\n')
    const res = await api.events('s', body, 'application/x-ndjson')
    const summary = await api.json(res)
    expect(summary.accepted).toBe(2)
    expect(summary.rejected).toHaveLength(1)
    expect(summary.rejected[0]).toMatchObject({
      index: 1,
      path: expect.stringMatching(/^\$\.content\.parts\[0\]\.functionCall\.args(\.a)+$/),
    })
    const result = await api.healthy('s')
    expect(result.eval_id).toBe('weather')
  })

  it('a deeply nested eval_case is refused at create with 422 naming the limit; nothing is created', async () => {
    const api = appWith()
    const res = await api.create(deepCaseBody('deep'))
    expect(res.status).toBe(422)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    const problem = await api.json(res)
    expect(problem).toMatchObject({ title: 'JSON nested too deep', limit: { name: 'EVALSTREAM_MAX_JSON_DEPTH', value: 100 } })
    expect(problem.path).toMatch(/^\$\.eval_case\.conversation\[0\]\.intermediate_data\.tool_uses\[0\]\.args/)
    expect((await api.app.request('/v1/sessions/deep')).status).toBe(404)
  })

  it('{} is not an event: rejected for its missing author, its neighbours kept', async () => {
    const api = appWith()
    await api.create({ session_id: 's', eval_config: CONFIG })
    const summary = await api.json(await api.events('s', JSON.stringify([WEATHER_EVENTS[0], {}, WEATHER_EVENTS[1]])))
    expect(summary.accepted).toBe(2)
    expect(summary.rejected).toEqual([{ index: 1, path: '$.author', message: expect.stringContaining('names its author') }])
  })

  it('a string over EVALSTREAM_MAX_STRING_LENGTH rejects its event, with the path', async () => {
    const api = appWith({ EVALSTREAM_MAX_STRING_LENGTH: '100' })
    await api.create({ session_id: 's', eval_config: CONFIG })
    const long = { author: 'agent', content: { parts: [{ text: 'y'.repeat(101) }] } }
    const summary = await api.json(await api.events('s', ndjson([WEATHER_EVENTS[0], long, WEATHER_EVENTS[1]]), 'application/x-ndjson'))
    expect(summary.accepted).toBe(2)
    expect(summary.rejected).toEqual([
      { index: 1, path: '$.content.parts[0].text', message: expect.stringContaining('EVALSTREAM_MAX_STRING_LENGTH=100') },
    ])
  })
})

describe('at the depth ceiling', () => {
  it('EVALSTREAM_MAX_JSON_DEPTH=1000 (the highest allowed): args that deep are scored, compared, written and streamed', async () => {
    const api = appWith({ EVALSTREAM_MAX_JSON_DEPTH: '1000' })
    // 990 levels of args, inside an event and inside the case: both within 1000 with their wrappers.
    let args: Record<string, unknown> = { city: 'Paris' }
    for (let i = 0; i < 980; i++) args = { a: args }
    const deepCase = weatherCase([{ name: 'get_weather', args }])
    expect(
      (await api.create({ session_id: 'ceiling', eval_config: { criteria: { tool_trajectory_avg_score: 1.0 } }, eval_case: deepCase }))
        .status,
    ).toBe(201)
    const call = {
      author: 'agent',
      invocationId: 'e-1',
      content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args } }] },
    }
    const answer = { author: 'agent', invocationId: 'e-1', content: { role: 'model', parts: [{ text: 'sunny' }] } }
    const results = api.app.request('/v1/sessions/ceiling/results')
    const summary = await api.json(await api.events('ceiling', JSON.stringify([call, answer])))
    expect(summary).toEqual({ accepted: 2, rejected: [] })
    const ended = await api.healthy('ceiling')
    expect(ended.overall_eval_metric_results[0]).toMatchObject({ metric_name: 'tool_trajectory_avg_score', score: 1, eval_status: 1 })
    const messages = await readSse(await results)
    expect(messages.at(-1)?.event).toBe('case.result')
  })
})

describe('request bytes', () => {
  /** A body that never ends, counting the chunks the server pulled. */
  function endless(chunk: string) {
    const bytes = new TextEncoder().encode(chunk)
    const counter = { pulled: 0 }
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        counter.pulled++
        controller.enqueue(bytes)
      },
    })
    return { stream, counter }
  }

  // Past the limit, the rest of a body is only dropped, and at most REFUSED_BODY_DRAIN_BYTES of it.
  it('an events body is decoded only up to EVALSTREAM_MAX_REQUEST_BYTES, then 413; events before it were accepted', async () => {
    const api = appWith({ EVALSTREAM_MAX_REQUEST_BYTES: '100000' })
    await api.create({ session_id: 's', eval_config: CONFIG })
    const line = `${JSON.stringify({ author: 'agent', invocationId: 'e-1', content: { parts: [{ text: 'z'.repeat(900) }] } })}\n`
    const { stream, counter } = endless(line)
    const res = await api.app.request('/v1/sessions/s/events', {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(413)
    const problem = await api.json(res)
    expect(problem).toMatchObject({ title: 'Request body too large', limit: { name: 'EVALSTREAM_MAX_REQUEST_BYTES', value: 100000 } })
    expect(problem.accepted).toBeGreaterThan(50)
    expect(counter.pulled * line.length).toBeLessThan(100_000 + REFUSED_BODY_DRAIN_BYTES + 10 * line.length)
  })

  it('a JSON array body past the limit is refused before it is parsed (nothing accepted)', async () => {
    const api = appWith({ EVALSTREAM_MAX_REQUEST_BYTES: '10000' })
    await api.create({ session_id: 's', eval_config: CONFIG })
    const events = Array.from({ length: 200 }, () => WEATHER_EVENTS[0])
    const res = await api.events('s', JSON.stringify(events))
    expect(res.status).toBe(413)
    expect((await api.json(res)).accepted).toBe(0)
  })

  it('a declared Content-Length over the limit is refused before reading', async () => {
    const api = appWith({ EVALSTREAM_MAX_REQUEST_BYTES: '1000' })
    await api.create({ session_id: 's', eval_config: CONFIG })
    const res = await api.events('s', nestedArrays(10), 'application/json', { 'content-length': '5000' })
    expect(res.status).toBe(413)
  })

  it('a create body is read as a stream and refused past the limit', async () => {
    const api = appWith({ EVALSTREAM_MAX_REQUEST_BYTES: '50000' })
    const { stream, counter } = endless(' '.repeat(1000))
    const res = await api.app.request('/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(413)
    expect(await api.json(res)).toMatchObject({ limit: { name: 'EVALSTREAM_MAX_REQUEST_BYTES', value: 50000 } })
    expect(counter.pulled * 1000).toBeLessThan(50_000 + REFUSED_BODY_DRAIN_BYTES + 10_000)
  })
})

describe('per-session limits', () => {
  it('EVALSTREAM_MAX_EVENTS_PER_SESSION: the upload stops at the limit (422), the next is refused at once', async () => {
    const api = appWith({ EVALSTREAM_MAX_EVENTS_PER_SESSION: '3' })
    await api.create({ session_id: 's', eval_config: CONFIG })
    const res = await api.events('s', ndjson(WEATHER_EVENTS), 'application/x-ndjson')
    expect(res.status).toBe(422)
    const problem = await api.json(res)
    expect(problem).toMatchObject({
      title: 'Session event limit reached',
      accepted: 3,
      limit: { name: 'EVALSTREAM_MAX_EVENTS_PER_SESSION', value: 3 },
    })
    const again = await api.events('s', JSON.stringify(WEATHER_EVENTS[4]))
    expect(again.status).toBe(422)
    await api.healthy('s')
  })

  it('EVALSTREAM_MAX_INVOCATIONS_PER_SESSION: an event opening one too many is rejected with its index, the others kept', async () => {
    const api = appWith({ EVALSTREAM_MAX_INVOCATIONS_PER_SESSION: '2' })
    await api.create({ session_id: 's', eval_config: CONFIG })
    const event = (invocationId: string) => ({ author: 'agent', invocationId, content: { parts: [{ text: 'hi' }] } })
    const summary = await api.json(await api.events('s', JSON.stringify([event('a'), event('b'), event('c'), event('a')])))
    expect(summary.accepted).toBe(3)
    expect(summary.rejected).toEqual([
      { index: 2, path: '$.invocationId', message: expect.stringContaining('EVALSTREAM_MAX_INVOCATIONS_PER_SESSION=2') },
    ])
  })
})

describe('create request', () => {
  it('refuses a non-JSON Content-Type with 415, accepts a JSON one or none', async () => {
    const api = appWith()
    const plain = await api.create({ session_id: 'a' }, { 'content-type': 'text/plain' })
    expect(plain.status).toBe(415)
    expect(await api.json(plain)).toMatchObject({ title: 'Unsupported Media Type', detail: expect.stringContaining('text/plain') })
    const none = await api.app.request('/v1/sessions', {
      method: 'POST',
      body: new TextEncoder().encode(JSON.stringify({ session_id: 'b' })),
    })
    expect(none.status).toBe(201)
    expect((await api.create({ session_id: 'c' }, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(201)
  })

  it("refuses the ids '.' and '..' (no URL reaches them), keeps '...'", async () => {
    const api = appWith()
    for (const id of ['.', '..']) {
      const res = await api.create({ session_id: id })
      expect(res.status).toBe(400)
      expect((await api.json(res)).detail).toContain("not '.' or '..'")
    }
    expect((await api.create({ session_id: '...' })).status).toBe(201)
  })

  it('never reflects the Host header: relative URLs, or under EVALSTREAM_PUBLIC_URL', async () => {
    const hostile = { 'content-type': 'application/json', host: 'evil.example' }
    const api = appWith()
    const res = await api.app.request('http://evil.example/v1/sessions', { method: 'POST', headers: hostile, body: '{"session_id":"h"}' })
    expect(res.headers.get('location')).toBe('/v1/sessions/h')
    expect((await api.json(res)).urls).toEqual({
      self: '/v1/sessions/h',
      events: '/v1/sessions/h/events',
      results: '/v1/sessions/h/results',
      end: '/v1/sessions/h/end',
    })
    const pub = appWith({ EVALSTREAM_PUBLIC_URL: 'https://evals.example.com/base/' })
    const res2 = await pub.app.request('http://evil.example/v1/sessions', { method: 'POST', headers: hostile, body: '{"session_id":"h"}' })
    expect(res2.headers.get('location')).toBe('https://evals.example.com/base/v1/sessions/h')
    expect((await pub.json(res2)).urls.events).toBe('https://evals.example.com/base/v1/sessions/h/events')
  })
})

describe('limits from the environment', () => {
  it('bad values stop the setup with the variable named', () => {
    for (
      const [name, value, message] of [
        ['EVALSTREAM_MAX_JSON_DEPTH', '5000', "EVALSTREAM_MAX_JSON_DEPTH must be a whole number from 1 to 1000, not '5000'"],
        ['EVALSTREAM_MAX_REQUEST_BYTES', '10MB', "EVALSTREAM_MAX_REQUEST_BYTES must be a whole number >= 1, not '10MB'"],
        ['EVALSTREAM_MAX_EVENTS_PER_SESSION', '0', 'must be a whole number >= 1'],
        ['EVALSTREAM_PUBLIC_URL', 'ftp://x', 'EVALSTREAM_PUBLIC_URL is not an http(s) URL'],
      ]
    ) {
      const setup = depsFromEnv({ ...NO_JUDGE_ENV, [name!]: value }, { store: memorySessionStore() })
      expect(setup.ok ? '' : setup.error).toContain(message)
    }
    const setup = depsFromEnv({ ...NO_JUDGE_ENV, EVALSTREAM_MAX_EVENT_BYTES: '2_000_000' }, { store: memorySessionStore() })
    expect(setup.ok && setup.deps.limits?.maxEventBytes).toBe(2_000_000)
  })
})

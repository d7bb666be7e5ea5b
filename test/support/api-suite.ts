/**
 * THE API suite: one set of tests that every runtime must pass (Node, Deno, workerd). It only talks
 * HTTP to a base URL, so the same assertions hold wherever the app runs.
 */
import { describe, expect, it } from 'vitest'
import { duplexPost } from './duplex.ts'
import { type Message, readSse, subscribe } from './sse-client.ts'
import {
  CONFIG,
  DIVERGING_CASE,
  EFFICIENCY_RESULTS,
  MATCHING_CASE,
  WEATHER_EVENTS,
  WEATHER_RESULT_TYPES,
  WEATHER_SSE,
} from './weather-fixtures.ts'
import { proxySuite } from './api-suite-proxy.ts'
import { proxyResultsSuite } from './api-suite-proxy-results.ts'

export type ApiTarget = { baseUrl: string; agentUrl: string; agentRequests(): Array<{ path: string; body: string }> }

let counter = 0
export const uniqueId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`

export function apiClient(target: () => ApiTarget) {
  const url = (path: string) => new URL(path, target().baseUrl).href
  return {
    url,
    async create(body: Record<string, unknown>) {
      const res = await fetch(url('/v1/sessions'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return { res, json: (await res.json()) as Record<string, any> }
    },
    events: (id: string, body: BodyInit, contentType: string, headers: Record<string, string> = {}) =>
      fetch(url(`/v1/sessions/${id}/events`), { method: 'POST', headers: { 'content-type': contentType, ...headers }, body }),
    results: (id: string, lastEventId?: number) =>
      fetch(url(`/v1/sessions/${id}/results`), { headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) } }),
    end: (id: string) => fetch(url(`/v1/sessions/${id}/end`), { method: 'POST' }),
  }
}

const types = (messages: Message[]) => messages.map((m) => m.event)
const seqs = (messages: Message[]) => messages.map((m) => Number(m.id))
const resultOf = (messages: Message[], metric: string) =>
  messages.find((m) => m.event === 'criterion.result' && (m.data as any).metric_name === metric)?.data as any

export function apiSuite(target: () => ApiTarget): void {
  const api = apiClient(target)

  describe('service basics', () => {
    it('answers /healthz and lists the criteria', async () => {
      expect((await fetch(api.url('/healthz'))).status).toBe(200)
      const res = await fetch(api.url('/v1/criteria'))
      const names = ((await res.json()) as any).criteria.map((c: any) => c.name)
      expect(names).toEqual(expect.arrayContaining(['tool_trajectory_avg_score', 'response_match_score']))
    })

    it('creates a session with its URLs, and refuses the same id twice with 409', async () => {
      const id = uniqueId('dup')
      const { res, json } = await api.create({ session_id: id, eval_config: CONFIG })
      expect(res.status).toBe(201)
      expect(json.session_id).toBe(id)
      // Relative: the Host header is the client's word and is never reflected (EVALSTREAM_PUBLIC_URL makes them absolute).
      expect(json.urls.results).toBe(`/v1/sessions/${id}/results`)
      expect(res.headers.get('location')).toBe(`/v1/sessions/${id}`)
      const again = await api.create({ session_id: id })
      expect(again.res.status).toBe(409)
      expect(again.res.headers.get('content-type')).toContain('application/problem+json')
      expect(again.json).toMatchObject({ status: 409, title: 'Session already exists', instance: '/v1/sessions' })
    })

    it('answers bad input with problem+json: bad JSON 400, bad config 422, unknown eval_id 404, unknown session 404', async () => {
      const badJson = await fetch(api.url('/v1/sessions'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{nope',
      })
      expect([badJson.status, ((await badJson.json()) as any).title]).toEqual([400, 'Invalid JSON'])
      const badConfig = await api.create({ eval_config: { criteria: 'all of them' } })
      expect(badConfig.res.status).toBe(422)
      expect(badConfig.json.detail).toContain('criteria')
      const set = { eval_set_id: 's', eval_cases: [MATCHING_CASE] }
      const noCase = await api.create({ eval_set: set, eval_id: 'other' })
      expect([noCase.res.status, noCase.json.detail]).toEqual([404, expect.stringContaining("'weather'")])
      const missing = await fetch(api.url('/v1/sessions/no-such-session/results'))
      expect(missing.status).toBe(404)
      expect(((await missing.json()) as any).instance).toBe('/v1/sessions/no-such-session/results')
    })
  })

  describe('events in, results out', () => {
    it('scores a captured /run_sse body and streams exactly the results, closing after case.result', async () => {
      const id = uniqueId('sse')
      await api.create({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE })
      const live = subscribe(await api.results(id))
      const posted = await api.events(id, WEATHER_SSE, 'text/event-stream')
      expect([posted.status, await posted.json()]).toEqual([202, { accepted: 5, rejected: [] }])
      const end = await api.end(id)
      const caseResult = (await end.json()) as any
      const messages = await live.closed
      expect(types(messages)).toEqual(WEATHER_RESULT_TYPES)
      expect(seqs(messages)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
      expect(resultOf(messages, 'tool_trajectory_avg_score')).toMatchObject({ score: 1, eval_status: 'PASSED' })
      expect(resultOf(messages, 'response_match_score')).toMatchObject({ score: 1, eval_status: 'PASSED' })
      expect(messages.at(-1)!.data).toEqual(caseResult)
      const snapshot = (await (await fetch(api.url(`/v1/sessions/${id}`))).json()) as any
      expect(snapshot).toMatchObject({ ended: true, last_seq: 8 })
    })

    it('accepts the same run as a JSON array and as NDJSON, with the same scores', async () => {
      for (
        const [body, type] of [
          [JSON.stringify(WEATHER_EVENTS), 'application/json'],
          [WEATHER_EVENTS.map((e) => JSON.stringify(e)).join('\n') + '\n', 'application/x-ndjson'],
        ] as const
      ) {
        const id = uniqueId('fmt')
        await api.create({ session_id: id, eval_config: CONFIG, eval_case: DIVERGING_CASE })
        expect(await (await api.events(id, body, type)).json()).toEqual({ accepted: 5, rejected: [] })
        await api.end(id)
        const messages = await readSse(await api.results(id))
        expect(resultOf(messages, 'tool_trajectory_avg_score')).toMatchObject({ score: 0, eval_status: 'FAILED' })
      }
    })

    it('rejects a bad event, reports it in the response and as an error result, and keeps the session going', async () => {
      const id = uniqueId('bad')
      await api.create({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE })
      const lines = WEATHER_EVENTS.map((e) => JSON.stringify(e))
      lines.splice(2, 0, '{"author": 42')
      const res = await api.events(id, lines.join('\n'), 'application/x-ndjson')
      const body = (await res.json()) as any
      expect(res.status).toBe(202)
      expect(body.accepted).toBe(5)
      expect(body.rejected).toEqual([{ index: 2, message: expect.stringContaining('JSON') }])
      await api.end(id)
      const messages = await readSse(await api.results(id))
      expect(types(messages)).toEqual([
        'invocation.started',
        'error',
        'criterion.result',
        'criterion.result',
        ...EFFICIENCY_RESULTS,
        'case.result',
      ])
      expect(messages[1]!.data).toMatchObject({ index: 2 })
      expect(resultOf(messages, 'tool_trajectory_avg_score').score).toBe(1)
    })

    it('refuses an unknown content type with 415 and events after the end with 409', async () => {
      const id = uniqueId('ct')
      await api.create({ session_id: id, eval_config: CONFIG })
      expect((await api.events(id, 'x', 'text/plain')).status).toBe(415)
      await api.end(id)
      const late = await api.events(id, JSON.stringify(WEATHER_EVENTS[0]), 'application/json')
      expect(late.status).toBe(409)
    })
  })

  describe('result subscriptions', () => {
    it('serves several subscribers at once, a late one in full, and resumes after Last-Event-ID with no gap or duplicate', async () => {
      const id = uniqueId('subs')
      await api.create({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE })
      const a = subscribe(await api.results(id))
      const b = subscribe(await api.results(id))
      const frames = WEATHER_SSE.split(/(?<=\n\n)/)
      await api.events(id, frames.slice(0, 2).join(''), 'text/event-stream')
      await a.until((m) => m.length >= 1)
      const c = subscribe(await api.results(id)) // joins mid-session
      await api.events(id, frames.slice(2).join(''), 'text/event-stream')
      await api.end(id)
      const [ma, mb, mc] = await Promise.all([a.closed, b.closed, c.closed])
      expect(types(ma)).toEqual(WEATHER_RESULT_TYPES)
      expect(mb).toEqual(ma)
      expect(mc).toEqual(ma)
      for (const after of [0, 1, 2, 3, 4]) {
        const resumed = await readSse(await api.results(id, after))
        expect(seqs(resumed)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].filter((s) => s > after))
      }
    })

    it('streams results back while the body is still uploading (full duplex)', async () => {
      const id = uniqueId('duplex')
      await api.create({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE })
      const frames = WEATHER_SSE.split(/(?<=\n\n)/)
      const upload = duplexPost(api.url(`/v1/sessions/${id}/events`), {
        'content-type': 'text/event-stream',
        accept: 'text/event-stream',
      })
      upload.write(frames[0]!)
      const live = subscribe(await upload.response)
      // The first result arrives before the rest of the body has even been sent.
      await live.until((m) => m.some((x) => x.event === 'invocation.started'))
      for (const f of frames.slice(1)) upload.write(f)
      upload.end()
      const messages = await live.closed
      expect(types(messages)).toEqual([
        'invocation.started',
        'criterion.result',
        'criterion.result',
        ...EFFICIENCY_RESULTS,
        'upload.summary',
      ])
      expect(messages.at(-1)!.data).toEqual({ accepted: 5, rejected: [] })
    })
  })

  describe('live verdicts and disconnects', () => {
    it('shows a subscriber the EXACT failure while the agent is still streaming', async () => {
      const id = uniqueId('early')
      await api.create({ session_id: id, eval_config: CONFIG, eval_case: DIVERGING_CASE })
      const live = subscribe(await api.results(id))
      const frames = WEATHER_SSE.split(/(?<=\n\n)/)
      const upload = duplexPost(api.url(`/v1/sessions/${id}/events`), { 'content-type': 'text/event-stream' })
      upload.write(frames[0]!) // get_weather: the case expects only get_time
      const seen = await live.until((m) => m.some((x) => x.event === 'criterion.progress'))
      // The verdict arrived while the rest of the agent's stream has not even been sent.
      const early = seen.find((x) => x.event === 'criterion.progress')!.data as any
      expect(early).toMatchObject({ metric_name: 'tool_trajectory_avg_score', final: true, score: 0, eval_status: 'FAILED' })
      expect(seen.some((x) => x.event === 'criterion.result')).toBe(false)
      for (const f of frames.slice(1)) upload.write(f)
      upload.end()
      expect(((await (await upload.response).json()) as any).accepted).toBe(5)
      await api.end(id)
      const all = await live.closed
      expect(types(all)).toEqual([
        'invocation.started',
        'criterion.progress',
        'criterion.result',
        'criterion.result',
        ...EFFICIENCY_RESULTS,
        'case.result',
      ])
      expect(resultOf(all, 'tool_trajectory_avg_score')).toMatchObject({ score: 0, eval_status: 'FAILED' })
    })

    it('drops the subscription of a client that disconnects', async () => {
      const id = uniqueId('gone')
      await api.create({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE })
      const subscribers = async () => ((await (await fetch(api.url(`/v1/sessions/${id}`))).json()) as any).subscribers as number
      const controller = new AbortController()
      const stream = await fetch(api.url(`/v1/sessions/${id}/results`), { signal: controller.signal })
      const reader = stream.body!.getReader()
      await api.events(id, JSON.stringify(WEATHER_EVENTS[0]), 'application/json')
      await reader.read() // the subscription is live: it delivered a result
      expect(await subscribers()).toBe(1)
      controller.abort()
      await reader.cancel().catch(() => {})
      // workerd notices a dead peer on its next write; give it one, as a live agent would.
      let left = await subscribers()
      for (let i = 0; i < 100 && left > 0; i++) {
        await api.events(id, JSON.stringify(WEATHER_EVENTS[1 + (i % 4)]), 'application/json')
        await new Promise((r) => setTimeout(r, 20))
        left = await subscribers()
      }
      expect(left).toBe(0)
    })
  })

  proxySuite(target, api)
  proxyResultsSuite(target, api)
}

/**
 * Limits and hostile input on Workers (workerd via Miniflare, SQLite Durable Objects): the same
 * refusals as Node, plus what only the Worker meets (its own routing reads, a Durable Object row).
 * Covers: worker/index.ts, worker/spec-limit.ts, src/http/read-body.ts, src/http/create-request.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniqueId } from '../../support/api-suite.ts'
import { CONFIG, MATCHING_CASE, WEATHER_EVENTS, weatherCase } from '../../support/weather-fixtures.ts'
import { crashBody, deepArgsEvent, deepCaseBody } from '../../support/hostile-bodies.ts'
import { readSse } from '../../support/sse-client.ts'
import { startWorker } from '../../support/runtimes.ts'

describe('limits on Workers', () => {
  let worker: Awaited<ReturnType<typeof startWorker>>
  const url = (path: string) => `${worker.baseUrl}${path}`
  const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(url(path), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  const json = async (res: Response) => (await res.json()) as Record<string, any>

  beforeAll(async () => {
    worker = await startWorker({})
  })
  afterAll(async () => {
    await worker?.stop()
  })

  it('a malformed percent-encoding in the session path is a 400, not a 500', async () => {
    const res = await fetch(url('/v1/sessions/%E0%A4%A/results'))
    expect(res.status).toBe(400)
    expect(await json(res)).toMatchObject({ title: 'Invalid session path' })
  })

  it('a 10 MB create body is a 413 naming the Durable Object row limit, not SQLITE_TOOBIG', async () => {
    const text = 'w'.repeat(500_000)
    const conversation = Array.from(
      { length: 20 },
      (_, i) => ({ ...MATCHING_CASE.conversation[0], invocation_id: `i${i}`, final_response: { parts: [{ text }] } }),
    )
    const res = await post('/v1/sessions', JSON.stringify({ eval_config: CONFIG, eval_case: { ...MATCHING_CASE, conversation } }))
    expect(res.status).toBe(413)
    expect(await json(res)).toMatchObject({ limit: { name: 'WORKER_MAX_SPEC_BYTES', value: 1_900_000 } })
    // Just under the limit (1.89 MB) still fits a row.
    const near = 'n'.repeat(944_000)
    const fits = {
      ...MATCHING_CASE,
      conversation: conversation.slice(0, 2).map((c) => ({ ...c, final_response: { parts: [{ text: near }] } })),
    }
    expect((await post('/v1/sessions', JSON.stringify({ eval_config: CONFIG, eval_case: fits }))).status).toBe(201)
  })

  it('EVALSTREAM_MAX_REQUEST_BYTES binds the Worker too (its own create and /run_sse reads, and the events route); a non-JSON type is a 415', async () => {
    const small = await startWorker({ EVALSTREAM_MAX_REQUEST_BYTES: '2000' })
    try {
      const pad = `{"pad":"${'p'.repeat(5000)}"}`
      for (const path of ['/v1/sessions', '/run_sse']) {
        const res = await fetch(`${small.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: pad })
        expect([path, res.status]).toEqual([path, 413])
        expect(await json(res)).toMatchObject({ limit: { name: 'EVALSTREAM_MAX_REQUEST_BYTES', value: 2000 } })
      }
      const created = await fetch(`${small.baseUrl}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"session_id":"small"}',
      })
      expect(created.status).toBe(201)
      const events = await fetch(`${small.baseUrl}/v1/sessions/small/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: pad,
      })
      expect(events.status).toBe(413)
    } finally {
      await small.stop()
    }
    expect((await post('/v1/sessions', '{}', { 'content-type': 'text/plain' })).status).toBe(415)
  })

  it("ids '.' and '..' are refused", async () => {
    for (const id of ['.', '..']) expect((await post('/v1/sessions', JSON.stringify({ session_id: id }))).status).toBe(400)
  })

  it('a deeply nested eval_case is a 422 and a 100,000-deep event is rejected without poisoning the session', async () => {
    expect((await post('/v1/sessions', deepCaseBody(uniqueId('deep-case')))).status).toBe(422)
    const id = uniqueId('deep')
    expect((await post('/v1/sessions', JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE }))).status).toBe(201)
    const body = [JSON.stringify(WEATHER_EVENTS[0]), deepArgsEvent(), ...WEATHER_EVENTS.slice(1).map((e) => JSON.stringify(e))].join('\n')
    const upload = await json(await post(`/v1/sessions/${id}/events`, body, { 'content-type': 'application/x-ndjson' }))
    expect(upload).toMatchObject({
      accepted: WEATHER_EVENTS.length,
      rejected: [{ index: 1, path: expect.stringContaining('functionCall.args') }],
    })
    expect((await fetch(url(`/v1/sessions/${id}`))).status).toBe(200)
    const ended = await post(`/v1/sessions/${id}/end`, '')
    expect(ended.status).toBe(200)
    const messages = await readSse(await fetch(url(`/v1/sessions/${id}/results`)))
    expect(messages.at(-1)?.event).toBe('case.result')
  })

  it('the crash body streamed back: summary with the one rejection, the session keeps answering', async () => {
    const id = uniqueId('crash')
    await post('/v1/sessions', JSON.stringify({ session_id: id, eval_config: CONFIG }))
    const messages = await readSse(await post(`/v1/sessions/${id}/events`, crashBody(), { accept: 'text/event-stream' }))
    expect(messages.find((m) => m.event === 'upload.summary')?.data).toMatchObject({ accepted: 2, rejected: [{ index: 1 }] })
    expect((await post(`/v1/sessions/${id}/end`, '')).status).toBe(200)
  })

  it('EVALSTREAM_MAX_JSON_DEPTH=1000 (the ceiling): args 990 levels deep are scored, stored, replayed and ended in workerd', async () => {
    const deep = await startWorker({ EVALSTREAM_MAX_JSON_DEPTH: '1000' })
    try {
      let args: Record<string, unknown> = { city: 'Paris' }
      for (let i = 0; i < 980; i++) args = { a: args }
      const spec = {
        session_id: 'ceiling',
        eval_config: { criteria: { tool_trajectory_avg_score: 1.0 } },
        eval_case: weatherCase([{ name: 'get_weather', args }]),
      }
      const at = (path: string, body: string, type = 'application/json') =>
        fetch(`${deep.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': type }, body })
      expect((await at('/v1/sessions', JSON.stringify(spec))).status).toBe(201)
      const call = {
        author: 'agent',
        invocationId: 'e-1',
        content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args } }] },
      }
      expect(await json(await at('/v1/sessions/ceiling/events', JSON.stringify([call])))).toEqual({ accepted: 1, rejected: [] })
      // Evicted: the object rebuilds the session by replaying the deep event from SQLite.
      await at('/v1/sessions/ceiling/__evict', '').catch(() => undefined)
      const ended = await json(await at('/v1/sessions/ceiling/end', ''))
      expect(ended.overall_eval_metric_results[0]).toMatchObject({ metric_name: 'tool_trajectory_avg_score', score: 1 })
    } finally {
      await deep.stop()
    }
  })

  it('the Host header is not reflected into Location or urls', async () => {
    const id = uniqueId('host')
    const res = await post('/v1/sessions', JSON.stringify({ session_id: id, eval_case: weatherCase([]) }), {
      'x-forwarded-host': 'evil.example',
    })
    expect(res.headers.get('location')).toBe(`/v1/sessions/${id}`)
    expect((await json(res)).urls.self).toBe(`/v1/sessions/${id}`)
  })
})

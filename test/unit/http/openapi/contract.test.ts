/**
 * What /openapi.json promises is what the routes answer: real answers of a scored session (JSON
 * bodies, problem+json errors, every SSE frame of both result streams) are parsed with the schema
 * the document names for them.
 * Covers: src/http/openapi/routes.ts, src/http/openapi/schemas.ts, src/http/openapi/describe.ts.
 */
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { createApp } from '../../../../src/http/app.ts'
import { schemaName, type SchemaRef } from '../../../../src/http/openapi/describe.ts'
import { RESULT_EVENTS } from '../../../../src/http/openapi/routes.ts'
import { NAMED_SCHEMAS } from '../../../../src/http/openapi/schemas.ts'
import { memorySessionStore } from '../../../../src/session/store.ts'
import { depsFromEnv } from '../../../../src/config/setup.ts'
import { NO_JUDGE_ENV } from '../../../support/no-judge-env.ts'
import { type Message, readSse } from '../../../support/sse-client.ts'
import { CONFIG, DIVERGING_CASE, WEATHER_EVENTS } from '../../../support/weather-fixtures.ts'

const setup = depsFromEnv(NO_JUDGE_ENV, { store: (limits, feed) => memorySessionStore({ limits, feed, sweeper: 'manual' }) })
if (!setup.ok) throw new Error(setup.error)
const app = createApp(setup.deps)

async function documented(res: Response, status: number, path: string, method: string) {
  const doc = (await (await app.request('/openapi.json')).json()) as any
  const response = doc.paths[path][method].responses[String(status)]
  expect(response, `${method} ${path} documents ${status}`).toBeDefined()
  expect(res.status).toBe(status)
  const [mediaType, media] = Object.entries(response.content ?? {})[0] as [string, any]
  expect(res.headers.get('content-type') ?? '').toContain(mediaType)
  const name = String(media.schema.$ref).split('/').at(-1)!
  return { body: (await res.json()) as unknown, schema: NAMED_SCHEMAS[name]! }
}

function conforms(value: unknown, schema: z.ZodType, what: string): void {
  const parsed = schema.safeParse(value)
  expect(parsed.success, `${what}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3))}`).toBe(true)
}

async function check(res: Response, status: number, path: string, method = 'get'): Promise<any> {
  const { body, schema } = await documented(res, status, path, method)
  conforms(body, schema, `${method.toUpperCase()} ${path} ${status}`)
  return body
}

function checkFrames(messages: Message[], events: Record<string, { data: SchemaRef }>): void {
  expect(messages.length).toBeGreaterThan(0)
  for (const m of messages) {
    const doc = events[m.event ?? 'message']
    expect(doc, `event type ${m.event} is documented`).toBeDefined()
    conforms(m.data, NAMED_SCHEMAS[schemaName(doc!.data)]!, `SSE ${m.event}`)
  }
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

describe('answers match the document', () => {
  it('a scored session, end to end', async () => {
    await check(await app.request('/healthz'), 200, '/healthz')
    await check(await app.request('/v1/criteria'), 200, '/v1/criteria')
    const created = await check(await post('/v1/sessions', { eval_config: CONFIG, eval_case: DIVERGING_CASE }), 201, '/v1/sessions', 'post')
    const id = created.session_id as string
    // One bad event among the good ones: the summary lists it.
    const summary = await check(
      await post(`/v1/sessions/${id}/events`, [...WEATHER_EVENTS, { content: 7 }]),
      202,
      '/v1/sessions/{id}/events',
      'post',
    )
    expect(summary.rejected).toHaveLength(1)
    await check(await app.request(`/v1/sessions/${id}`), 200, '/v1/sessions/{id}')
    const ended = await check(await app.request(`/v1/sessions/${id}/end`, { method: 'POST' }), 200, '/v1/sessions/{id}/end', 'post')
    expect(ended.final_eval_status).toBe(2)
    const messages = await readSse(await app.request(`/v1/sessions/${id}/results`))
    expect(messages.map((m) => m.event)).toEqual(expect.arrayContaining(['invocation.started', 'criterion.result', 'case.result', 'error']))
    checkFrames(messages, RESULT_EVENTS)
    const deleted = await app.request(`/v1/sessions/${id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(204)
  })

  it('the full-duplex upload streams documented frames, ending with upload.summary', async () => {
    const created = await (await post('/v1/sessions', { eval_config: CONFIG, eval_case: DIVERGING_CASE })).json()
    const res = await post(`/v1/sessions/${created.session_id}/events`, WEATHER_EVENTS, { accept: 'text/event-stream' })
    expect(res.status).toBe(200)
    const doc = (await (await app.request('/openapi.json')).json()) as any
    const events = doc.paths['/v1/sessions/{id}/events'].post.responses['200'].content['text/event-stream']['x-sse-events']
    const names = Object.fromEntries(
      Object.entries(events).map(([k, v]: [string, any]) => [k, { data: String(v.data.$ref).split('/').at(-1)! }]),
    )
    const messages = await readSse(res)
    expect(messages.at(-1)?.event).toBe('upload.summary')
    checkFrames(messages, names)
  })

  it('errors are the documented problems', async () => {
    await check(await app.request('/v1/sessions/nope'), 404, '/v1/sessions/{id}')
    await check(await post('/v1/sessions', { session_id: '..' }), 400, '/v1/sessions', 'post')
    const wrongType = await app.request('/v1/sessions', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })
    await check(wrongType, 415, '/v1/sessions', 'post')
    await check(await post('/v1/runs', {}), 400, '/v1/runs', 'post')
    await check(await app.request('/v1/runs/nope'), 404, '/v1/runs/{id}')
    // Without metrics (this app was built without them), /metrics says so as its documented 404.
    await check(await app.request('/metrics'), 404, '/metrics')
  })
})

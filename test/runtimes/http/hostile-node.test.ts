/**
 * The crash of issue 7 on a real socket: the Node server process (`npm start`'s entry) gets the
 * crash body with `Accept: text/event-stream` and a 100,000-deep event, and must answer both,
 * stay alive, and log no stray error (the process guard would hide a crash, so its log is checked).
 * Covers: src/adapter/node/server.ts, src/adapter/node/process-guard.ts, src/http/events-route.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSse } from '../../support/sse-client.ts'
import { type ServerProcess, spawnServer } from '../../support/server-process.ts'
import { CONFIG, MATCHING_CASE, WEATHER_SSE } from '../../support/weather-fixtures.ts'
import { crashBody, deepArgsEvent } from '../../support/hostile-bodies.ts'

describe('Node server process under hostile bodies', () => {
  let server: ServerProcess
  let base: string
  const output = () => server.output()
  beforeAll(async () => {
    server = await spawnServer('node')
    base = server.baseUrl
  })
  afterAll(() => server?.stop())

  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

  it('the crash body with Accept: text/event-stream: summary streamed, session intact, process alive', async () => {
    expect((await post('/v1/sessions', JSON.stringify({ session_id: 'crash', eval_config: CONFIG }), {})).status).toBe(201)
    const res = await post('/v1/sessions/crash/events', crashBody(), { accept: 'text/event-stream' })
    expect(res.status).toBe(200)
    const messages = await readSse(res)
    const summary = messages.find((m) => m.event === 'upload.summary')?.data as Record<string, any>
    expect(summary).toMatchObject({ accepted: 2, rejected: [{ index: 1, message: expect.stringContaining('EVALSTREAM_MAX_JSON_DEPTH') }] })
    expect((await fetch(`${base}/v1/sessions/crash`)).status).toBe(200)
    expect((await post('/v1/sessions/crash/end', '', {})).status).toBe(200)
    expect(server.child.exitCode).toBeNull()
  })

  it('a 100,000-deep event does not poison the session: results stream closes with case.result', async () => {
    const create = JSON.stringify({ session_id: 'deep', eval_config: CONFIG, eval_case: MATCHING_CASE })
    expect((await post('/v1/sessions', create, {})).status).toBe(201)
    const body = `${WEATHER_SSE}data: ${deepArgsEvent()}\n\n`
    const upload = await post('/v1/sessions/deep/events', body, { 'content-type': 'text/event-stream' })
    expect(upload.status).toBe(202)
    expect(((await upload.json()) as any).rejected).toEqual([
      expect.objectContaining({ index: 5, path: expect.stringContaining('functionCall.args') }),
    ])
    const results = fetch(`${base}/v1/sessions/deep/results`)
    expect((await post('/v1/sessions/deep/end', '', {})).status).toBe(200)
    const messages = await readSse(await results)
    expect(messages.at(-1)?.event).toBe('case.result')
    expect((await fetch(`${base}/v1/sessions/deep`)).status).toBe(200)
    expect(server.child.exitCode).toBeNull()
    expect(output()).not.toMatch(/unhandled rejection|uncaught exception/)
  })
})

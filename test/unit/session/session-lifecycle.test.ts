/**
 * Session lifecycle through the HTTP app on Node (in-process, `app.fetch`): the cap evicts the
 * least recently active session, a client asking for it gets 410 problem+json saying why while a
 * never-existing id stays 404, open result streams get an `error` frame and close, DELETE frees a
 * session, and ended sessions and idle ones go after their retention and TTL (set through the
 * same environment variables the servers read). The store runs on a clock the test moves, and the
 * test runs its sweeper: nothing waits on real time.
 * Covers: src/session/store.ts, src/config/session-limits.ts, src/http/sessions-routes.ts.
 */
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv, type Env } from '../../../src/config/setup.ts'
import { CONFIG, MATCHING_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { readSse } from '../../support/sse-client.ts'
import { jsonRequest } from '../../support/json-request.ts'

function app(env: Env) {
  const clock = { ms: 1_000_000 }
  const setup = depsFromEnv(
    { ...NO_JUDGE_ENV, ...env },
    { store: (limits) => memorySessionStore({ limits, now: () => clock.ms, sweeper: 'manual' }) },
  )
  if (!setup.ok) throw new Error(setup.error)
  const a = createApp(setup.deps)
  const call = (method: string, path: string, body?: unknown) => a.fetch(jsonRequest(method, path, body))
  const create = async (id: string) =>
    expect((await call('POST', '/v1/sessions', { session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE })).status).toBe(201)
  return { call, create, store: setup.deps.store, clock }
}

describe('session lifecycle over HTTP', () => {
  it('past EVALSTREAM_MAX_SESSIONS the least recently active session is evicted: 410, and its stream errors', async () => {
    const { call, create, store } = app({ EVALSTREAM_MAX_SESSIONS: '2' })
    await create('a')
    await create('b')
    const stream = readSse(await call('GET', '/v1/sessions/a/results'))
    await create('c')
    const messages = await stream
    expect(messages.at(-1)?.event).toBe('error')
    expect((messages.at(-1)?.data as { message: string }).message).toMatch(/EVALSTREAM_MAX_SESSIONS/)

    const gone = await call('GET', '/v1/sessions/a')
    expect(gone.status).toBe(410)
    expect(gone.headers.get('content-type')).toContain('application/problem+json')
    const problem = (await gone.json()) as { detail: string; status: number }
    expect(problem.status).toBe(410)
    expect(problem.detail).toMatch(/session 'a' was evicted .*at most 2 sessions \(EVALSTREAM_MAX_SESSIONS\)/)
    expect((await call('POST', '/v1/sessions/a/events', WEATHER_EVENTS)).status).toBe(410)
    expect((await call('GET', '/v1/sessions/never')).status).toBe(404)
    expect((await call('GET', '/v1/sessions/b')).status).toBe(200)
    store.close()
  })

  it('DELETE frees a session: 204, then 404 for it and for a second DELETE', async () => {
    const { call, create, store } = app({})
    await create('d')
    expect((await call('POST', '/v1/sessions/d/events', WEATHER_EVENTS)).status).toBe(202)
    const stream = readSse(await call('GET', '/v1/sessions/d/results'))
    const deleted = await call('DELETE', '/v1/sessions/d')
    expect(deleted.status).toBe(204)
    const messages = await stream
    expect(messages.at(-1)).toMatchObject({ event: 'error', data: { message: expect.stringMatching(/was deleted/) } })
    expect((await call('GET', '/v1/sessions/d')).status).toBe(404)
    expect((await call('DELETE', '/v1/sessions/d')).status).toBe(404)
    expect((await call('DELETE', '/v1/sessions/never')).status).toBe(404)
    store.close()
  })

  it('an ended session is readable during EVALSTREAM_ENDED_RETENTION_MS, then 410', async () => {
    const { call, create, store, clock } = app({ EVALSTREAM_ENDED_RETENTION_MS: '1000' })
    await create('e')
    await call('POST', '/v1/sessions/e/events', WEATHER_EVENTS)
    const result = await (await call('POST', '/v1/sessions/e/end')).json()
    expect((await call('GET', '/v1/sessions/e')).status).toBe(200)
    const replay = await readSse(await call('GET', '/v1/sessions/e/results'))
    expect(replay.at(-1)).toMatchObject({ event: 'case.result', data: result })
    // Reading does not extend the retention: it is counted from the end.
    clock.ms += 999
    expect((await call('GET', '/v1/sessions/e')).status).toBe(200)
    clock.ms += 1
    expect((await call('GET', '/v1/sessions/e')).status).toBe(410)
    const detail = ((await (await call('GET', '/v1/sessions/e/results')).json()) as { detail: string }).detail
    expect(detail).toMatch(/ended and its result was kept for 1000 ms \(EVALSTREAM_ENDED_RETENTION_MS\)/)
    store.close()
  })

  it('an open session with no request for EVALSTREAM_SESSION_IDLE_TTL_MS is swept; its subscriber is told', async () => {
    const { call, create, store, clock } = app({ EVALSTREAM_SESSION_IDLE_TTL_MS: '500' })
    await create('idle')
    // A subscriber is not activity: the stream waits, and the sweeper ends it.
    const stream = readSse(await call('GET', '/v1/sessions/idle/results'))
    clock.ms += 499
    store.sweep()
    clock.ms += 1
    store.sweep()
    const messages = await stream
    expect(messages).toEqual([
      {
        id: undefined,
        event: 'error',
        data: { message: expect.stringMatching(/no request for 500 ms \(EVALSTREAM_SESSION_IDLE_TTL_MS\)/) },
      },
    ])
    expect((await call('GET', '/v1/sessions/idle')).status).toBe(410)
    store.close()
  })

  it('refuses a limit that is not a whole number, naming the variable', () => {
    for (
      const [name, value] of [
        ['EVALSTREAM_MAX_SESSIONS', '0'],
        ['EVALSTREAM_SESSION_IDLE_TTL_MS', 'soon'],
        ['EVALSTREAM_ENDED_RETENTION_MS', '1.5'],
      ]
    ) {
      const setup = depsFromEnv({ ...NO_JUDGE_ENV, [name!]: value }, { store: (limits) => memorySessionStore({ limits }) })
      expect(setup).toEqual({ ok: false, error: `${name} must be a whole number >= 1, not '${value}'` })
    }
  })
})

/**
 * The `reason` an upload refusal is counted under in evalstream_event_uploads_refused_total is its
 * failure code's label, through the real events route: a session past its byte budget, a process
 * past its byte budget and a body past the request byte limit are three reasons, though two of them
 * answer 413.
 * Covers: src/http/events-route.ts, src/monitor/prometheus.ts, src/engine/failure-codes.ts.
 */
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv, type Env } from '../../../src/config/setup.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { jsonRequest } from '../../support/json-request.ts'
import { parseExposition } from '../../support/metrics-exposition.ts'

const textEvent = (inv: string, chars: number) => ({
  author: 'agent',
  invocationId: inv,
  content: { role: 'model', parts: [{ text: 'x'.repeat(chars) }] },
})
const events = (count: number, chars: number) => Array.from({ length: count }, (_, n) => textEvent(`i${n}`, chars))

function appWith(env: Env) {
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...env }, {
    store: (limits, feed) => memorySessionStore({ limits, feed, sweeper: 'manual' }),
    metrics: true,
  })
  if (!setup.ok) throw new Error(setup.error)
  const app = createApp(setup.deps)
  const call = (method: string, path: string, body?: unknown) => app.fetch(jsonRequest(method, path, body))
  const create = async (id: string) =>
    expect((await call('POST', '/v1/sessions', { session_id: id, eval_config: CONFIG })).status).toBe(201)
  const refusals = async () => {
    const exposition = parseExposition(await (await call('GET', '/metrics')).text())
    return Object.fromEntries(
      exposition.samples.filter((s) => s.name === 'evalstream_event_uploads_refused_total').map((s) => [s.labels.reason, s.value]),
    )
  }
  return { app, call, create, refusals }
}

describe('upload refusals are counted by their code', () => {
  it('a session byte budget and the request byte limit both answer 413 and count as session_bytes and too_large', async () => {
    const { call, create, refusals } = appWith({ EVALSTREAM_MAX_SESSION_BYTES: '200000', EVALSTREAM_MAX_REQUEST_BYTES: '400000' })
    await create('s')
    const overBudget = await call('POST', '/v1/sessions/s/events', events(6, 50_000))
    expect(overBudget.status).toBe(413)
    expect(((await overBudget.json()) as { limit: { name: string } }).limit.name).toBe('EVALSTREAM_MAX_SESSION_BYTES')
    await create('t')
    const overRequest = await call('POST', '/v1/sessions/t/events', events(10, 50_000))
    expect(overRequest.status).toBe(413)
    expect(((await overRequest.json()) as { limit: { name: string } }).limit.name).toBe('EVALSTREAM_MAX_REQUEST_BYTES')
    expect(await refusals()).toEqual({ session_bytes: 1, too_large: 1 })
  })

  it('the process byte budget answers 503 and counts as process_bytes', async () => {
    const { call, create, refusals } = appWith({ EVALSTREAM_MAX_PROCESS_BYTES: '1000000', EVALSTREAM_MAX_SESSION_BYTES: '10000000' })
    await create('a')
    expect((await call('POST', '/v1/sessions/a/events', events(8, 100_000))).status).toBe(202)
    await create('b')
    const full = await call('POST', '/v1/sessions/b/events', [textEvent('b0', 100_000)])
    expect(full.status).toBe(503)
    expect(await refusals()).toEqual({ process_bytes: 1 })
  })

  it('a session at its event limit counts as session_full, a wrong Content-Type as unsupported_format', async () => {
    const { app, call, create, refusals } = appWith({ EVALSTREAM_MAX_EVENTS_PER_SESSION: '2' })
    await create('s')
    expect((await call('POST', '/v1/sessions/s/events', events(2, 10))).status).toBe(202)
    expect((await call('POST', '/v1/sessions/s/events', events(1, 10))).status).toBe(422)
    const wrongType = await app.fetch(
      new Request('http://local/v1/sessions/s/events', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }),
    )
    expect(wrongType.status).toBe(415)
    expect(await refusals()).toEqual({ session_full: 1, unsupported_format: 1 })
  })
})

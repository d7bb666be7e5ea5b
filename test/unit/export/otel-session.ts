/**
 * One scripted session through an in-process app, for the exporter tests: create, upload the
 * recorded weather run, end. The weather run gives two criterion results and a case result.
 */
import { expect } from 'vitest'
import type { createApp } from '../../../src/http/app.ts'
import { CONFIG, WEATHER_SSE } from '../../support/weather-fixtures.ts'

/** Creates a session, uploads the weather run, ends it: two criterion results and a case result. */
export async function runSession(app: ReturnType<typeof createApp>, id: string, evalCase: unknown, extra: Record<string, unknown> = {}) {
  const created = await app.request('/v1/sessions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: evalCase, ...extra }),
  })
  expect(created.status, await created.clone().text()).toBe(201)
  const events = await app.request(`/v1/sessions/${id}/events`, {
    method: 'POST',
    headers: { 'content-type': 'text/event-stream' },
    body: WEATHER_SSE,
  })
  expect(events.ok).toBe(true)
  const end = await app.request(`/v1/sessions/${id}/end`, { method: 'POST' })
  expect(end.status).toBe(200)
}

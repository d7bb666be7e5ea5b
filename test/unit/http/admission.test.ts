/**
 * Admission of new sessions: while the host's admission says the loop is over its budget, a create
 * is answered 503 problem+json with Retry-After and the limit named, without reading the body;
 * sessions admitted before keep taking events; once under budget, creates succeed again. The
 * budget's variable follows the whole-number rule.
 */
import { describe, expect, it } from 'vitest'
import { admissionLagFromEnv, DEFAULT_ADMISSION_LAG_MS } from '../../../src/config/admission.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { admissionFromLag } from '../../../src/http/admission.ts'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'

describe('admission of new sessions', () => {
  it('refuses creates with 503 and Retry-After while the loop is behind, and admits again after', async () => {
    let lagMs = 10
    const app = createApp({
      store: memorySessionStore({ sweeper: 'manual' }),
      createEngine: (o) => createSessionEngine(o),
      admission: admissionFromLag(() => lagMs, 250),
    })
    const create = (id: string) =>
      app.request('/v1/sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: id }),
      })
    expect((await create('early')).status).toBe(201)

    lagMs = 400
    const refused = await create('late')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(refused.headers.get('content-type')).toContain('application/problem+json')
    const body = (await refused.json()) as { detail: string; limit: { name: string; value: number } }
    expect(body.limit).toEqual({ name: 'EVALSTREAM_ADMISSION_LAG_MS', value: 250 })
    expect(body.detail).toContain('400 ms, above 250 ms')
    // The admitted session is served all the same.
    const events = await app.request('/v1/sessions/early/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ invocationId: 'i', author: 'agent', content: { role: 'model', parts: [{ text: 'hi' }] } }),
    })
    expect(events.status).toBe(202)
    expect((await app.request('/v1/sessions/late')).status).toBe(404)

    lagMs = 250
    expect((await create('late')).status).toBe(201)
  })

  it('reads EVALSTREAM_ADMISSION_LAG_MS as a whole number of ms', () => {
    expect(admissionLagFromEnv({})).toEqual({ ok: true, value: DEFAULT_ADMISSION_LAG_MS })
    expect(admissionLagFromEnv({ EVALSTREAM_ADMISSION_LAG_MS: '100' })).toEqual({ ok: true, value: 100 })
    const bad = admissionLagFromEnv({ EVALSTREAM_ADMISSION_LAG_MS: '0.5s' })
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.error).toContain('EVALSTREAM_ADMISSION_LAG_MS')
  })
})

/**
 * Admission of new sessions: while the host's loop is both late and busy with its own work, a create
 * is answered 503 problem+json with Retry-After (from the measured delay) and the limit named,
 * without reading the body; sessions admitted before keep taking events; once under budget, creates
 * succeed again. A late loop that is mostly idle (a healthy server on a busy machine) admits. The
 * pressure is injected: nothing here depends on how loaded the machine is.
 */
import { describe, expect, it } from 'vitest'
import { admissionLimitsFromEnv, DEFAULT_ADMISSION_BUSY_PERCENT, DEFAULT_ADMISSION_LAG_MS } from '../../../src/config/admission.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { admissionFromLoop, type LoopPressure, MAX_RETRY_AFTER_S, retryAfterFor } from '../../../src/http/admission.ts'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'

describe('admission of new sessions', () => {
  it('refuses creates with 503 and Retry-After while the loop is behind, and admits again after', async () => {
    let pressure: LoopPressure = { delayMs: 10, busyShare: 0.2 }
    const app = createApp({
      store: memorySessionStore({ sweeper: 'manual' }),
      createEngine: (o) => createSessionEngine(o),
      admission: admissionFromLoop(() => pressure, { lagMs: 250, busyShare: 0.9 }),
    })
    const create = (id: string) =>
      app.request('/v1/sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: id }),
      })
    expect((await create('early')).status).toBe(201)

    pressure = { delayMs: 400, busyShare: 0.95 }
    const refused = await create('late')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(refused.headers.get('content-type')).toContain('application/problem+json')
    const body = (await refused.json()) as { detail: string; limit: { name: string; value: number } }
    expect(body.limit).toEqual({ name: 'EVALSTREAM_ADMISSION_LAG_MS', value: 250 })
    expect(body.detail).toContain('400 ms late (above 250 ms, EVALSTREAM_ADMISSION_LAG_MS) and busy 95%')
    // The admitted session is served all the same.
    const events = await app.request('/v1/sessions/early/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ invocationId: 'i', author: 'agent', content: { role: 'model', parts: [{ text: 'hi' }] } }),
    })
    expect(events.status).toBe(202)
    expect((await app.request('/v1/sessions/late')).status).toBe(404)

    pressure = { delayMs: 250, busyShare: 1 }
    expect((await create('late')).status).toBe(201)
  })

  it('admits while the loop is late but mostly idle: other processes hold the cores, not its own work', async () => {
    let pressure: LoopPressure = { delayMs: 3_000, busyShare: 0.89 }
    const admission = admissionFromLoop(() => pressure, { lagMs: 250, busyShare: 0.9 })
    expect(admission()).toBeUndefined()
    pressure = { delayMs: 3_000, busyShare: 0.9 }
    expect(admission()).toMatchObject({ retryAfterS: 6, measuredMs: 3_000, busyShare: 0.9, limitMs: 250 })
  })

  it('asks a refused client to wait twice the measured delay, from 1 s to MAX_RETRY_AFTER_S', () => {
    expect(retryAfterFor(251)).toBe(1)
    expect(retryAfterFor(500)).toBe(1)
    expect(retryAfterFor(501)).toBe(2)
    expect(retryAfterFor(1_600)).toBe(4)
    expect(retryAfterFor(10 * 60_000)).toBe(MAX_RETRY_AFTER_S)
  })

  it('reads EVALSTREAM_ADMISSION_LAG_MS (ms) and EVALSTREAM_ADMISSION_BUSY_PERCENT (1 to 100) as whole numbers', () => {
    expect(admissionLimitsFromEnv({})).toEqual({
      ok: true,
      value: { lagMs: DEFAULT_ADMISSION_LAG_MS, busyShare: DEFAULT_ADMISSION_BUSY_PERCENT / 100 },
    })
    expect(admissionLimitsFromEnv({ EVALSTREAM_ADMISSION_LAG_MS: '100', EVALSTREAM_ADMISSION_BUSY_PERCENT: '75' })).toEqual({
      ok: true,
      value: { lagMs: 100, busyShare: 0.75 },
    })
    const bad = admissionLimitsFromEnv({ EVALSTREAM_ADMISSION_LAG_MS: '0.5s' })
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.error).toContain('EVALSTREAM_ADMISSION_LAG_MS')
    const over = admissionLimitsFromEnv({ EVALSTREAM_ADMISSION_BUSY_PERCENT: '101' })
    expect(over).toEqual({ ok: false, error: "EVALSTREAM_ADMISSION_BUSY_PERCENT must be a whole number from 1 to 100, not '101'" })
  })
})

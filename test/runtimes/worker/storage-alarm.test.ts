/**
 * A Durable Object frees its storage: its alarm evicts the session after the retention (ended) or
 * the idle TTL (open), leaves a 410 notice for EVALSTREAM_GONE_NOTICE_MS, then deletes everything
 * (`deleteAll`); DELETE frees it at once. Through Miniflare (workerd runs the alarms), with the
 * limits shortened through the same bindings a deployment sets. What the object's SQLite holds is
 * read through the test hook, which does not count as activity.
 * Covers: worker/session-object.ts, worker/durable-store.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient, uniqueId } from '../../support/api-suite.ts'
import { CONFIG, MATCHING_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { startWorker } from '../../support/runtimes.ts'
import { readSse } from '../../support/sse-client.ts'

type Storage = { tables: string[]; rows: Record<string, number> }

/** Idle TTL and ended retention of every session here (ms). */
const LIFETIME_MS = 6_000
/** How long the 410 notice stays (ms): long enough for a poll on a busy machine to see it. */
const NOTICE_MS = 4_000
const POLL_DEADLINE_MS = 120_000

describe('Durable Object storage is deleted by its alarm', () => {
  let worker: Awaited<ReturnType<typeof startWorker>>
  const api = apiClient(() => ({ baseUrl: worker.baseUrl, agentUrl: '', agentRequests: () => [] }))
  const storage = async (id: string) => (await (await fetch(api.url(`/v1/sessions/${id}/__storage`))).json()) as Storage
  const status = async (id: string) => (await fetch(api.url(`/v1/sessions/${id}`))).status
  /** Polls for what the alarm does; the deadline only catches a hang (an alarm that never runs). */
  async function until(check: () => Promise<boolean>): Promise<void> {
    const deadline = performance.now() + POLL_DEADLINE_MS
    while (performance.now() < deadline) {
      if (await check()) return
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error(`condition never held within ${POLL_DEADLINE_MS} ms`)
  }
  const create = async (id: string) =>
    expect((await api.create({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE })).res.status).toBe(201)

  beforeAll(async () => {
    // Short, but far longer than the few requests a test makes between two of its steps take on a
    // machine with every core busy (a step that came after the TTL would find the session gone).
    worker = await startWorker({
      EVALSTREAM_SESSION_IDLE_TTL_MS: String(LIFETIME_MS),
      EVALSTREAM_ENDED_RETENTION_MS: String(LIFETIME_MS),
      EVALSTREAM_GONE_NOTICE_MS: String(NOTICE_MS),
    })
  })
  afterAll(async () => {
    await worker?.stop()
  })

  it('an ended session: kept for the retention, then 410, then no storage at all', async () => {
    const id = uniqueId('ended')
    await create(id)
    await api.events(id, JSON.stringify(WEATHER_EVENTS), 'application/json')
    const result = await (await api.end(id)).json()
    const held = await storage(id)
    expect(held.rows.es_sessions).toBe(1)
    expect(held.rows.es_results).toBeGreaterThan(0)
    expect((await readSse(await api.results(id))).at(-1)).toMatchObject({ event: 'case.result', data: result })

    await until(async () => (await storage(id)).rows.es_sessions === 0)
    expect(await storage(id)).toMatchObject({ rows: { es_sessions: 0, es_journal: 0, es_results: 0, es_gone: 1 } })
    const gone = await fetch(api.url(`/v1/sessions/${id}`))
    expect(gone.status).toBe(410)
    expect(((await gone.json()) as { detail: string }).detail).toMatch(/EVALSTREAM_ENDED_RETENTION_MS/)

    await until(async () => (await storage(id)).tables.length === 0)
    expect(await status(id)).toBe(404)
    // Asking about an unknown id leaves nothing behind either.
    expect(await storage(id)).toEqual({ tables: [], rows: {} })
  })

  it('an open idle session: its subscriber gets an error frame, then the storage goes', async () => {
    const id = uniqueId('idle')
    await create(id)
    await api.events(id, JSON.stringify(WEATHER_EVENTS.slice(0, 2)), 'application/json')
    const messages = await readSse(await api.results(id))
    expect(messages.at(-1)).toMatchObject({ event: 'error', data: { message: expect.stringMatching(/EVALSTREAM_SESSION_IDLE_TTL_MS/) } })
    expect(await status(id)).toBe(410)
    await until(async () => (await storage(id)).tables.length === 0)
  })

  it('DELETE frees the storage at once; the id is then 404', async () => {
    const id = uniqueId('deleted')
    await create(id)
    await api.events(id, JSON.stringify(WEATHER_EVENTS), 'application/json')
    expect((await fetch(api.url(`/v1/sessions/${id}`), { method: 'DELETE' })).status).toBe(204)
    expect(await storage(id)).toEqual({ tables: [], rows: {} })
    expect(await status(id)).toBe(404)
    expect((await fetch(api.url(`/v1/sessions/${id}`), { method: 'DELETE' })).status).toBe(404)
  })
})

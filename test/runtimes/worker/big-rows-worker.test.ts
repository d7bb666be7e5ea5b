/**
 * No row too big on Workers (workerd via Miniflare, SQLite Durable Objects, whose values stop at
 * 2 MB): three ~990 KB text events, each within EVALSTREAM_MAX_EVENT_BYTES, make a case result of
 * about 3 MB. The session ends, and after its object restarts it is still read, ended again and
 * deleted: the long texts are stored split over rows (src/session/sqlite/chunks.ts).
 * Covers: src/session/sqlite/chunks.ts, worker/durable-store.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniqueId } from '../../support/api-suite.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'
import { readSse } from '../../support/sse-client.ts'
import { startWorker } from '../../support/runtimes.ts'

/** An agent text event just under the 1,000,000-byte event limit. */
const bigEvent = (n: number) => ({
  author: 'agent',
  invocationId: `big-${n}`,
  content: { role: 'model', parts: [{ text: `${n}`.padEnd(990_000, 'x') }] },
})

describe('a session with a case result larger than a Durable Object row', () => {
  const persist = mkdtempSync(join(tmpdir(), 'evalstream-bigrows-'))
  let worker: Awaited<ReturnType<typeof startWorker>>
  const url = (path: string) => `${worker.baseUrl}${path}`
  const post = (path: string, body?: unknown) =>
    fetch(url(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  // The test hook aborts the object (its answer is that abort), so only what follows is checked.
  const restart = (id: string) => post(`/v1/sessions/${id}/__evict`).then((r) => r.body?.cancel(), () => undefined)

  beforeAll(async () => {
    worker = await startWorker({}, persist)
  })
  afterAll(async () => {
    await worker?.stop()
    rmSync(persist, { recursive: true, force: true })
  })

  it('ends, and after the object restarts is read, ended again and deleted', async () => {
    const id = uniqueId('bigrows')
    expect((await post('/v1/sessions', { session_id: id, eval_config: CONFIG })).status).toBe(201)
    for (const n of [0, 1, 2]) {
      const pushed = await post(`/v1/sessions/${id}/events`, [bigEvent(n)])
      expect(await pushed.json()).toEqual({ accepted: 1, rejected: [] })
    }
    const ended = await post(`/v1/sessions/${id}/end`)
    expect(ended.status).toBe(200)
    const text = await ended.text()
    expect(text.length).toBeGreaterThan(2_900_000)
    const caseResult = JSON.parse(text) as Record<string, unknown>

    // Everything in memory goes; SQLite stays. Every route works on the rebuilt session.
    await restart(id)
    const snapshot = await fetch(url(`/v1/sessions/${id}`))
    expect(snapshot.status).toBe(200)
    expect(await snapshot.json()).toMatchObject({ ended: true, case_result: caseResult })
    const messages = await readSse(await fetch(url(`/v1/sessions/${id}/results`)))
    expect(messages.at(-1)?.event).toBe('case.result')
    expect(messages.at(-1)?.data).toEqual(caseResult)
    expect(await (await post(`/v1/sessions/${id}/end`)).json()).toEqual(caseResult)

    await restart(id)
    expect((await fetch(url(`/v1/sessions/${id}`), { method: 'DELETE' })).status).toBe(204)
    expect((await fetch(url(`/v1/sessions/${id}`))).status).toBe(404)
    // Nothing of it is left in the object's storage.
    const storage = (await (await fetch(url(`/v1/sessions/${id}/__storage`))).json()) as { tables: string[] }
    expect(storage.tables).toEqual([])
  })
})

/**
 * An ended session lets its engine and events go and keeps its final snapshot; its case result is
 * read back from its result log (the case.result event) and its conversation is JSON text (memory
 * store) or read from the journal (SQLite): what it answers is exactly what it answered before the
 * end let them go, the snapshot's counters stay live, and a second /end returns the same case result.
 * Covers: src/session/ended-answers.ts, src/session/ended-engine.ts, src/session/session.ts.
 */
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { memorySessionStore, sqliteSessionStore } from '../../../src/session/store.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { DatabaseSync } from 'node:sqlite'
import { CONFIG, MATCHING_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { jsonRequest } from '../../support/json-request.ts'

const STORES = {
  memory: () => memorySessionStore(),
  sqlite: () => sqliteSessionStore(sqlFromDatabaseSync(new DatabaseSync(':memory:'))),
}

function service(kind: keyof typeof STORES) {
  const store = STORES[kind]()
  const createEngine = (o: Parameters<typeof createSessionEngine>[0]) => createSessionEngine(o)
  const app = createApp({ store, createEngine })
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(jsonRequest(method, path, body))
    return { status: res.status, type: res.headers.get('content-type'), json: (await res.json()) as Record<string, unknown> }
  }
  return { call, session: async (id: string) => (await store.get(id, createEngine))! }
}

describe.each(Object.keys(STORES) as Array<keyof typeof STORES>)('an ended session answers from what it kept (%s store)', (kind) => {
  it('snapshot, case result and conversation are the same before and after the engine goes', async () => {
    const { call, session: get } = service(kind)
    expect((await call('POST', '/v1/sessions', { session_id: 's', eval_config: CONFIG, eval_case: MATCHING_CASE })).status).toBe(201)
    expect((await call('POST', '/v1/sessions/s/events', WEATHER_EVENTS)).status).toBe(202)
    const session = await get('s')
    // What the live session would answer once ended, as objects: taken before the end lets them go.
    const conversationBefore = (await call('GET', '/v1/sessions/s/conversation')).json
    const ended = await call('POST', '/v1/sessions/s/end')
    expect(ended.status).toBe(200)

    const got = await call('GET', '/v1/sessions/s')
    expect(got).toMatchObject({ status: 200, type: 'application/json' })
    expect(got.json.case_result).toEqual(ended.json)
    expect(got.json).toMatchObject({ session_id: 's', ended: true, last_seq: session.log.lastSeq(), subscribers: 0 })
    expect((got.json.invocations as unknown[]).length).toBe(1)
    expect(session.snapshot()).toEqual(got.json)

    expect((await call('GET', '/v1/sessions/s/conversation')).json).toEqual({ ...conversationBefore, ended: true })
    expect((await call('POST', '/v1/sessions/s/end')).json).toEqual(ended.json)
  })

  it('the counters in the kept snapshot are live: a subscriber shows', async () => {
    const { call, session: get } = service(kind)
    await call('POST', '/v1/sessions', { session_id: 'c', eval_config: CONFIG, eval_case: MATCHING_CASE })
    await call('POST', '/v1/sessions/c/events', WEATHER_EVENTS)
    await call('POST', '/v1/sessions/c/end')
    const session = await get('c')
    const stop = session.log.subscribe(() => {})
    expect((await call('GET', '/v1/sessions/c')).json.subscribers).toBe(1)
    stop()
    expect((await call('GET', '/v1/sessions/c')).json.subscribers).toBe(0)
  })
})

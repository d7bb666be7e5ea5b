/**
 * A SQLite session lets a completed invocation's events go and reads them back from its journal
 * (src/engine/conversation.ts): through the HTTP app, with late events for an invocation let go
 * long before, it answers exactly as a memory session that kept everything, and so does the same
 * session rebuilt by replay in a second store over the database (a restart), whether the restart
 * comes before the late events or after the end.
 * Covers: src/session/journaled-events.ts, src/session/session.ts, src/engine/conversation.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { memorySessionStore, type SessionStore, sqliteSessionStore } from '../../../src/session/store.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { jsonRequest } from '../../support/json-request.ts'
import { readSse } from '../../support/sse-client.ts'

const CITIES = ['Paris', 'Lima', 'Oslo']
const EVAL_CASE = {
  eval_id: 'late',
  conversation: CITIES.map((city, k) => ({
    invocation_id: `expected-${k}`,
    user_content: { role: 'user', parts: [{ text: `Weather in ${city}?` }] },
    final_response: { role: 'model', parts: [{ text: `In ${city} it is sunny.` }] },
    intermediate_data: { tool_uses: [{ name: 'get_weather', args: { city } }, { name: 'get_time', args: { city } }] },
  })),
}
const CONFIG = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.5 } }
const ask = (k: number) => ({
  invocationId: `i${k}`,
  author: 'user',
  content: { role: 'user', parts: [{ text: `Weather in ${CITIES[k]}?` }] },
})
const call = (k: number, name: string) => ({
  invocationId: `i${k}`,
  author: 'agent',
  content: { role: 'model', parts: [{ functionCall: { name, args: { city: CITIES[k] } } }] },
})
const say = (k: number, text: string) => ({ invocationId: `i${k}`, author: 'agent', content: { role: 'model', parts: [{ text }] } })
const whole = (k: number) => [ask(k), call(k, 'get_weather'), call(k, 'get_time'), say(k, `In ${CITIES[k]} it is sunny.`)]

/** Invocation 0 answers too early; its second call and its real answer come after 1 and 2. */
const EARLY = [ask(0), call(0, 'get_weather'), say(0, 'In Paris'), ...whole(1), ...whole(2)]
const LATE = [call(0, 'get_time'), say(0, 'In Paris it is sunny.')]

function host(store: SessionStore) {
  const app = createApp({ store, createEngine: (o) => createSessionEngine(o) })
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(jsonRequest(method, path, body))
    expect(res.status, `${method} ${path}`).toBeLessThan(300)
    return res
  }
  const json = async (method: string, path: string, body?: unknown) =>
    (await (await call(method, path, body)).json()) as Record<string, any>
  /** Every logged result as the stream sends it (seq, type, data): read after the end, the stream closes by itself. */
  const results = async () =>
    (await readSse(await call('GET', '/v1/sessions/s/results'))).map((m) => ({ seq: Number(m.id), type: m.event, data: m.data }))
  return { call, json, results }
}

/** One clock for every store: invocation_duration_v1 measures by it, so hosts agree to the millisecond. */
const now = () => 1_700_000_000_000
const sqliteStore = (db: DatabaseSync) => sqliteSessionStore(sqlFromDatabaseSync(db), { now })

describe('a SQLite session whose completed invocations let their events go', () => {
  it('answers a late event and the end as a memory session that kept them', async () => {
    const memory = host(memorySessionStore({ now }))
    const sqlite = host(sqliteStore(new DatabaseSync(':memory:')))
    for (const h of [memory, sqlite]) {
      await h.call('POST', '/v1/sessions', { session_id: 's', eval_config: CONFIG, eval_case: EVAL_CASE })
      await h.call('POST', '/v1/sessions/s/events', EARLY)
    }
    expect(await sqlite.json('GET', '/v1/sessions/s')).toEqual(await memory.json('GET', '/v1/sessions/s'))
    for (const h of [memory, sqlite]) await h.call('POST', '/v1/sessions/s/events', LATE)
    const ended = await memory.json('POST', '/v1/sessions/s/end')
    expect(await sqlite.json('POST', '/v1/sessions/s/end')).toEqual(ended)
    // Invocation 0 was revised by its late events: both calls, and the full answer.
    const first = ended.eval_metric_result_per_invocation[0]
    expect(first.eval_metric_results.map((r: any) => [r.metric_name, r.score]).slice(0, 2)).toEqual([
      ['tool_trajectory_avg_score', 1],
      ['response_match_score', 1],
    ])
    expect(await sqlite.results()).toEqual(await memory.results())
    expect(await sqlite.json('GET', '/v1/sessions/s/conversation')).toEqual(await memory.json('GET', '/v1/sessions/s/conversation'))
  })

  it('rebuilt by replay, before the late events or after the end, answers the same and logs nothing twice', async () => {
    const memory = host(memorySessionStore({ now }))
    await memory.call('POST', '/v1/sessions', { session_id: 's', eval_config: CONFIG, eval_case: EVAL_CASE })
    await memory.call('POST', '/v1/sessions/s/events', EARLY)
    await memory.call('POST', '/v1/sessions/s/events', LATE)
    const ended = await memory.json('POST', '/v1/sessions/s/end')
    const logged = await memory.results()
    const endedSnapshot = await memory.json('GET', '/v1/sessions/s')

    const db = new DatabaseSync(':memory:')
    const before = host(sqliteStore(db))
    await before.call('POST', '/v1/sessions', { session_id: 's', eval_config: CONFIG, eval_case: EVAL_CASE })
    await before.call('POST', '/v1/sessions/s/events', EARLY)
    // A restart: a second store over the database rebuilds the open session by replay, then takes the late events.
    const restarted = host(sqliteStore(db))
    await restarted.call('POST', '/v1/sessions/s/events', LATE)
    expect(await restarted.json('POST', '/v1/sessions/s/end')).toEqual(ended)
    expect(await restarted.results()).toEqual(logged)

    // And again after the end: replayed from the journal, every result recognised, none appended.
    const again = host(sqliteStore(db))
    const snapshot = await again.json('GET', '/v1/sessions/s')
    expect(snapshot.case_result).toEqual(ended)
    expect(snapshot.last_seq).toBe(logged.length)
    // Each invocation's results, read back from the log by the seqs the replay recognised.
    expect(snapshot).toEqual(endedSnapshot)
    expect(await again.results()).toEqual(logged)
  })
})

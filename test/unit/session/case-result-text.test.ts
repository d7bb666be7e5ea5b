/**
 * A session's case result is stringified once, when it is logged: the `/end` answer, the snapshot,
 * a second `/end` and a stream read after the end write that text, from the JSON text cache while
 * it keeps it, else as the SQLite row stores it, even when the cache let it go in between.
 * Covers: src/session/session.ts, src/session/ended-answers.ts, src/session/sqlite/results.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { RECENT_RESULT_TEXT_CHARS, resultDataJson } from '../../../src/session/result-json.ts'
import { sqliteSessionStore } from '../../../src/session/store.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { CONFIG, MATCHING_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { jsonRequest } from '../../support/json-request.ts'
import { readSse } from '../../support/sse-client.ts'

/** Texts enough to push every other one out of the cache. */
function fillTextCache(): void {
  const chunk = 'x'.repeat(RECENT_RESULT_TEXT_CHARS / 20)
  for (let i = 0; i < 24; i++) resultDataJson({ chunk })
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('the case result text', () => {
  it.each([false, true])('is made once, at its emit (cache let go before the later answers: %s)', async (evicted) => {
    const store = sqliteSessionStore(sqlFromDatabaseSync(new DatabaseSync(':memory:')))
    const app = createApp({ store, createEngine: (o) => createSessionEngine(o) })
    const text = async (method: string, path: string, body?: unknown) => {
      const res = await app.fetch(jsonRequest(method, path, body))
      expect(res.status, `${method} ${path}`).toBeLessThan(300)
      return res.text()
    }
    await text('POST', '/v1/sessions', { session_id: 's', eval_config: CONFIG, eval_case: MATCHING_CASE })
    await text('POST', '/v1/sessions/s/events', WEATHER_EVENTS)
    const stringify = JSON.stringify
    let made = 0
    vi.spyOn(JSON, 'stringify').mockImplementation((value: unknown, ...rest: unknown[]) => {
      if (typeof value === 'object' && value !== null && 'final_eval_status' in value) made++
      return (stringify as (...args: unknown[]) => string)(value, ...rest)
    })

    const ended = await text('POST', '/v1/sessions/s/end')
    expect(made).toBe(1)
    if (evicted) fillTextCache()
    const snapshot = await text('GET', '/v1/sessions/s')
    const again = await text('POST', '/v1/sessions/s/end')
    const stream = await readSse(await app.fetch(jsonRequest('GET', '/v1/sessions/s/results')))
    expect(made).toBe(1)

    expect(snapshot.endsWith(`"case_result":${ended}}`)).toBe(true)
    expect(again).toBe(ended)
    expect(stream.at(-1)).toMatchObject({ event: 'case.result' })
    expect(JSON.stringify(stream.at(-1)!.data)).toBe(ended)
  })
})

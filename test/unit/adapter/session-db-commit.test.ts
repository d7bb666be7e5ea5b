/**
 * EVALSTREAM_DB as Deno opens it (src/adapter/sqlite-db.ts without a writer thread): one commit per
 * turn of the event loop, and a request that wrote is answered only once its writes are committed
 * (`durable`, the app's `writesDurable`), so what a client was told is in the file, as another
 * connection (a server restarted after a kill -9) reads it. `:memory:` has nothing to wait for.
 * Covers: src/adapter/sqlite-db.ts, src/session/sql.ts, src/http/app.ts.
 */
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { MEMORY_DB, openSessionDb } from '../../../src/adapter/sqlite-db.ts'
import { depsFromEnv } from '../../../src/config/setup.ts'
import { createApp } from '../../../src/http/app.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { testTempDir } from '../../support/temp-dir.ts'
import { CONFIG, WEATHER_SSE } from '../../support/weather-fixtures.ts'

function server(path: string) {
  const db = openSessionDb(path)
  const setup = depsFromEnv({ ...NO_JUDGE_ENV }, { store: db.store, judgeCache: db.judgeCache })
  if (!setup.ok) throw new Error(setup.error)
  const app = createApp({ ...setup.deps, ...(db.durable ? { writesDurable: db.durable } : {}) })
  return { app, db }
}

describe('EVALSTREAM_DB on the event loop (Deno)', () => {
  it('answers an upload once its events are committed: another connection reads them then', async () => {
    const path = join(testTempDir('evalstream-commit-'), 'evalstream.db')
    const { app, db } = server(path)
    expect(db.durable).toBeTypeOf('function')
    const json = { 'content-type': 'application/json' }
    const created = await app.request('/v1/sessions', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ session_id: 's', eval_config: CONFIG }),
    })
    expect(created.status).toBe(201)
    const other = new DatabaseSync(path)
    const journaled = () => Number((other.prepare("SELECT COUNT(*) AS n FROM es_journal WHERE session_id = 's'").get() as { n: number }).n)
    const upload = await app.request('/v1/sessions/s/events', {
      method: 'POST',
      headers: { 'content-type': 'text/event-stream' },
      body: WEATHER_SSE,
    })
    expect(upload.status).toBe(202)
    const { accepted } = (await upload.json()) as { accepted: number }
    expect(accepted).toBeGreaterThan(0)
    // Answered: every accepted event is in the file, though the turn that wrote it may not be over.
    expect(journaled()).toBeGreaterThanOrEqual(accepted)
    other.close()
    db.close()
  })

  it('keeps sessions in memory with nothing to wait for', () => {
    const db = openSessionDb(MEMORY_DB)
    expect(db.durable).toBeUndefined()
    db.close()
  })
})

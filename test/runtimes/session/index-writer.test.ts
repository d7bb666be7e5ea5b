/**
 * The results index written by the sessions database's writer thread into its own file
 * (src/adapter/node/index-writer.ts, write-behind-index.ts): a read on the main thread sees every
 * batch sent before it, even long before the writer's own flush would run; a batch the index
 * refuses costs neither the sessions' rows nor the next batch; and through the real Node server on
 * a database file, what /v1/results showed before a kill -9 is all there after the restart, once,
 * from the index's own file beside the sessions'.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { indexOnSessionsWriter, indexPathFor } from '../../../src/adapter/node/index-writer.ts'
import { writeBehindSql } from '../../../src/adapter/node/write-behind-sql.ts'
import { DEFAULT_INDEX_LIMITS } from '../../../src/monitor/results-index-limits.ts'
import { sqliteResultsIndex } from '../../../src/monitor/results-index.ts'
import type { FedResult } from '../../../src/session/result-feed.ts'
import { CONFIG, MATCHING_CASE, WEATHER_SSE } from '../../support/weather-fixtures.ts'
import { type ServerProcess, spawnServer } from '../../support/server-process.ts'

const dir = mkdtempSync(join(tmpdir(), 'evalstream-index-writer-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const result = (sessionId: string, seq: number): FedResult =>
  ({
    sessionId,
    atMs: Date.now(),
    webhook: { url: 'https://example.test/hook', secret: 'never-indexed' },
    event: {
      seq,
      type: 'criterion.result',
      key: `k${seq}`,
      data: { invocation_index: 0, metric_name: `m${seq}`, score: 1, threshold: 1, eval_status: 'PASSED' },
    },
  }) as unknown as FedResult

describe('the results index on the sessions writer thread', () => {
  it('names its file beside the sessions database', () => {
    expect(indexPathFor('.evalstream/evalstream.db')).toBe(join('.evalstream', 'evalstream-index.db'))
    expect(indexPathFor('/data/sessions')).toBe('/data/sessions-index.db')
  })

  it('a read waits for what was sent before it, however long the flush interval', async () => {
    // An hour between flushes: only the read's own request can have committed the rows.
    const path = join(dir, 'unit.db')
    const sessions = writeBehindSql(path, { flushMs: 3_600_000, index: { path: indexPathFor(path), limits: DEFAULT_INDEX_LIMITS } })
    const index = indexOnSessionsWriter(sessions, indexPathFor(path))
    try {
      sessions.query('CREATE TABLE IF NOT EXISTS t (n INTEGER)')
      sessions.query('INSERT INTO t (n) VALUES (?)', 1)
      index.write([result('a', 1), result('a', 2)])
      index.write([result('b', 1)])
      const rows = index.readSql.query('SELECT session_id, seq, data FROM es_index_results ORDER BY session_id, seq')
      expect(rows.map((r) => `${r.session_id}/${r.seq}`)).toEqual(['a/1', 'a/2', 'b/1'])
      expect(rows.every((r) => !String(r.data).includes('never-indexed'))).toBe(true)
      expect(sessions.query('SELECT n FROM t')).toEqual([{ n: 1 }])
    } finally {
      index.close()
      await sessions.close()
    }
  })

  it("closing the writer commits the index rows it was sent, as well as the sessions' rows", async () => {
    const path = join(dir, 'closed.db')
    const sessions = writeBehindSql(path, { flushMs: 3_600_000, index: { path: indexPathFor(path), limits: DEFAULT_INDEX_LIMITS } })
    const index = indexOnSessionsWriter(sessions, indexPathFor(path))
    // Many rows, so the writer is still at the index's when the sessions' commit is published.
    const batch = Array.from({ length: 2_000 }, (_, i) => result('c', i + 1))
    index.write(batch)
    sessions.query('CREATE TABLE IF NOT EXISTS t (n INTEGER)')
    sessions.query('INSERT INTO t (n) VALUES (?)', 3)
    index.close()
    await sessions.close()
    const reopened = new DatabaseSync(indexPathFor(path))
    try {
      expect(reopened.prepare('SELECT COUNT(*) AS n FROM es_index_results').get()).toEqual({ n: 2_000 })
    } finally {
      reopened.close()
    }
  })

  it("a batch the index refuses is not indexed, and costs neither the sessions' rows nor the next batch", async () => {
    const path = join(dir, 'refused.db')
    const sessions = writeBehindSql(path, { flushMs: 3_600_000, index: { path: indexPathFor(path), limits: DEFAULT_INDEX_LIMITS } })
    const index = indexOnSessionsWriter(sessions, indexPathFor(path))
    try {
      // The schema, as the server's own index over these reads makes it; then a trigger that refuses seq 2.
      sqliteResultsIndex(index.readSql)
      index.readSql.query("CREATE TRIGGER refuse BEFORE INSERT ON es_index_results WHEN NEW.seq = 2 BEGIN SELECT RAISE(ABORT, 'no'); END")
      sessions.query('CREATE TABLE IF NOT EXISTS t (n INTEGER)')
      index.write([result('a', 1), result('a', 2)])
      sessions.query('INSERT INTO t (n) VALUES (?)', 7)
      sessions.settle()
      index.write([result('b', 1)])
      const rows = index.readSql.query('SELECT session_id, seq FROM es_index_results ORDER BY session_id, seq')
      expect(rows.map((r) => `${r.session_id}/${r.seq}`)).toEqual(['b/1'])
      expect(sessions.query('SELECT n FROM t')).toEqual([{ n: 7 }])
    } finally {
      index.close()
      await sessions.close()
    }
  })
})

describe('kill -9 with the index written off the event loop (Node, EVALSTREAM_DB file)', () => {
  let server: ServerProcess | undefined
  afterAll(async () => {
    if (server?.child.exitCode === null) await server.stop('SIGKILL')
  })

  it('keeps every result /v1/results showed before the kill, once each', async () => {
    const db = join(dir, 'server', 'evalstream.db')
    const env = { EVALSTREAM_DB: db }
    server = await spawnServer('node', { env })
    const call = (path: string, init?: RequestInit) => fetch(new URL(path, server!.baseUrl).href, init)
    for (const id of ['one', 'two']) {
      const body = JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE })
      expect((await call('/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(201)
      const upload = await call(`/v1/sessions/${id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'text/event-stream' },
        body: WEATHER_SSE,
      })
      expect(upload.status).toBe(202)
      await upload.text()
      expect((await call(`/v1/sessions/${id}/end`, { method: 'POST' })).status).toBe(200)
    }
    const before = (await (await call('/v1/results?limit=100')).json()) as { results: { session_id: string; seq: number }[] }
    // Seven results a session (two criteria, ADK's four efficiency metrics, the case result).
    expect(before.results.length).toBe(14)
    await server.stop('SIGKILL')
    expect(existsSync(indexPathFor(db))).toBe(true)

    server = await spawnServer('node', { env })
    const after = (await (await fetch(new URL('/v1/results?limit=100', server.baseUrl).href)).json()) as typeof before
    expect(after.results.map((r) => `${r.session_id}/${r.seq}`).sort()).toEqual(
      before.results.map((r) => `${r.session_id}/${r.seq}`).sort(),
    )
    await server.stop('SIGTERM')
  })
})

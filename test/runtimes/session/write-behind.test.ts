/**
 * The sessions database written behind by a worker thread (src/adapter/node/write-behind-sql.ts):
 * writes are acknowledged when queued and reach the file only when the writer commits (after its
 * flush interval, or when a read asks), reads on the main thread see every write before them, a
 * write that returns rows runs synchronously, and a failing write costs no other write. Through the
 * real Node server, a kill -9 right after acknowledged uploads (no read in between, which would
 * commit everything) loses none of them: each was answered only once committed. The replayed
 * session has every invocation sent, its results numbered 1..n with no gap and no repeat, and it
 * takes more events and ends. A statement's text crosses to the writer thread once, however many
 * rows use it, and the WAL grows to WAL_CHECKPOINT_PAGES before the writer checkpoints it.
 * Covers: src/adapter/node/write-behind-sql.ts, src/adapter/node/write-behind-worker.ts, src/adapter/node/server.ts.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DatabaseSync } from 'node:sqlite'
import { Worker } from 'node:worker_threads'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { writeBehindSql } from '../../../src/adapter/node/write-behind-sql.ts'
import { WAL_CHECKPOINT_PAGES } from '../../../src/adapter/node/writer-pragmas.ts'
import { sqliteSessionRecords } from '../../../src/session/sqlite/records.ts'
import { CONFIG, MATCHING_CASE } from '../../support/weather-fixtures.ts'
import { WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { type ServerProcess, spawnServer } from '../../support/server-process.ts'
import { readSse } from '../../support/sse-client.ts'

const dir = mkdtempSync(join(tmpdir(), 'evalstream-write-behind-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('write-behind SQL', () => {
  it('queues writes, commits them when a read asks, and answers RETURNING synchronously', async () => {
    const path = join(dir, 'unit.db')
    // An hour between flushes: only a read (or a RETURNING write) can have committed anything.
    const sql = writeBehindSql(path, { flushMs: 3_600_000 })
    const outside = new DatabaseSync(path)
    try {
      sql.query('CREATE TABLE t (n INTEGER PRIMARY KEY, v TEXT)')
      for (let n = 1; n <= 100; n++) expect(sql.query('INSERT INTO t (n, v) VALUES (?, ?)', n, `v${n}`)).toEqual([])
      sql.query('INSERT INTO t (n, v) VALUES (?, ?)', 1, 'duplicate key: fails alone')
      sql.query('INSERT INTO t (n, v) VALUES (?, ?)', 101, 'after the failure')
      // A second connection (what a restarted process would read) sees nothing yet: the window.
      expect(outside.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 't'").get()).toEqual({ n: 0 })
      expect(sql.query('SELECT COUNT(*) AS n FROM t')).toEqual([{ n: 101 }])
      expect(outside.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 101 })
      expect(sql.query("UPDATE t SET v = 'x' WHERE n > 99 RETURNING n")).toEqual([{ n: 100 }, { n: 101 }])
      expect(() => sql.query("INSERT INTO t (n, v) VALUES (1, 'again') RETURNING n")).toThrow(/UNIQUE/)
    } finally {
      outside.close()
      await sql.close()
    }
  })
})

describe('statements cross to the writer by number', () => {
  it("sends a statement's text once, its rows as numbers and params, and prepares again a statement that failed to", async () => {
    // Every message the main thread posts to the writer thread, cloned as it is sent.
    const posted = vi.spyOn(Worker.prototype, 'postMessage')
    const sql = writeBehindSql(join(dir, 'numbers.db'), { flushMs: 3_600_000 })
    try {
      const insert = 'INSERT INTO t (n, v) VALUES (?, ?)'
      // The table is not there yet: the write fails alone, and the statement is prepared again later.
      sql.query(insert, 0, 'before the table')
      sql.settle()
      sql.query('CREATE TABLE t (n INTEGER PRIMARY KEY, v TEXT)')
      for (let n = 1; n <= 50; n++) {
        sql.query(insert, n, `v${n}`)
        if (n % 10 === 0) sql.settle()
      }
      sql.query('BEGIN')
      sql.query('COMMIT')
      expect(sql.query('SELECT COUNT(*) AS n, MIN(n) AS low FROM t')).toEqual([{ n: 50, low: 1 }])
      expect(sql.query('UPDATE t SET v = ? WHERE n = ? RETURNING n', 'x', 7)).toEqual([{ n: 7 }])
      expect(sql.query('UPDATE t SET v = ? WHERE n = ? RETURNING n', 'y', 8)).toEqual([{ n: 8 }])
    } finally {
      await sql.close()
    }
    const crossed = JSON.stringify(posted.mock.calls.map(([message]) => message))
    posted.mockRestore()
    expect(crossed.split(JSON.stringify('INSERT INTO t (n, v) VALUES (?, ?)')).length - 1).toBe(1)
    expect(crossed.split('RETURNING').length - 1).toBe(1)
    // Callers' BEGIN and COMMIT do not cross at all: the writer's transaction groups them already.
    expect(crossed).not.toMatch(/"BEGIN"|"COMMIT"/)
    expect(crossed).toContain('"v50"')
  })
})

describe('checkpoints', () => {
  it("lets the WAL grow past SQLite's 1,000-page default before copying it into the database file", async () => {
    const path = join(dir, 'checkpoints.db')
    const sql = writeBehindSql(path, { flushMs: 3_600_000 })
    try {
      sql.query('CREATE TABLE t (n INTEGER PRIMARY KEY, v TEXT)')
      // 3,000 rows of 3 KB (about a page each), committed 100 at a time, nothing read meanwhile: at
      // 1,000 pages the writer would have checkpointed and started the WAL over, under 5 MB.
      for (let n = 1; n <= 3_000; n++) {
        sql.query('INSERT INTO t (n, v) VALUES (?, ?)', n, String(n).padEnd(3_000, '.'))
        if (n % 100 === 0) sql.settle()
      }
      sql.settle()
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(2_500 * 4_096)
      expect(statSync(`${path}-wal`).size).toBeLessThan(WAL_CHECKPOINT_PAGES * 4_200)
      expect(sql.query('SELECT COUNT(*) AS n FROM t')).toEqual([{ n: 3_000 }])
    } finally {
      await sql.close()
    }
  })
})

describe('waiting for the writer', () => {
  it('keeps a process with nothing else to do alive until its writes are committed', () => {
    const module = fileURLToPath(new URL('../../../src/adapter/node/write-behind-sql.ts', import.meta.url))
    // The writer thread is unref'd and Atomics.waitAsync holds no handle: only the wait's own timer
    // keeps this script from exiting with its await pending (exit code 13).
    const script = `
      import { writeBehindSql } from ${JSON.stringify(module)}
      const sql = writeBehindSql(process.env.DB_PATH)
      sql.query('CREATE TABLE t (n INTEGER)')
      sql.query('INSERT INTO t (n) VALUES (1)')
      console.log('committed', await sql.durable())
      await sql.close()
    `
    // A file, not `-e`: a worker thread inherits the parent's exec arguments, `-e` and its script too.
    const file = join(dir, 'alone.mjs')
    writeFileSync(file, script)
    const run = spawnSync(process.execPath, [file], {
      env: { ...process.env, DB_PATH: join(dir, 'alone.db') },
      encoding: 'utf8',
      timeout: 240_000,
    })
    expect(run.stderr).not.toMatch(/unsettled top-level await/)
    expect(run.stdout.trim()).toBe('committed true')
    expect(run.status).toBe(0)
  })
})

describe('a session journal over the write-behind database', () => {
  it('reads back every entry and result: settled ones without waiting for the writer, newer ones after it commits them', async () => {
    const path = join(dir, 'journal.db')
    const sql = writeBehindSql(path)
    const outside = new DatabaseSync(path)
    try {
      const records = sqliteSessionRecords(sql)
      expect(records.insert({ session_id: 'a' }, 0)).toBe(true)
      const { journal } = records.storage('a')
      expect(journal.rereadable).toBe(true)
      for (let index = 0; index < 3; index++) journal.append({ op: 'event', index, raw: { n: index } })
      await journal.settle!()
      // Settled: the three are in the file, and a read needs no commit for them.
      expect(outside.prepare("SELECT COUNT(*) AS n FROM es_journal WHERE session_id = 'a'").get()).toEqual({ n: 3 })
      expect([...journal.entries()].map((e) => (e.op === 'event' ? e.index : -1))).toEqual([0, 1, 2])
      // One more, not settled: the read waits for the writer, and sees it.
      journal.append({ op: 'end' })
      expect([...journal.entries()].map((e) => e.op)).toEqual(['event', 'event', 'event', 'end'])

      // The session's results, the same way.
      const { results } = records.storage('a')
      const result = (seq: number) => ({ seq, type: 'error' as const, key: `e/${seq}`, data: { n: seq } })
      results.insert(result(1))
      results.insert(result(2))
      await results.settle!()
      expect(outside.prepare("SELECT COUNT(*) AS n FROM es_results WHERE session_id = 'a'").get()).toEqual({ n: 2 })
      expect(results.readAfter(0).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }])
      results.insert(result(3))
      expect(results.readAfter(1).map((e) => e.seq)).toEqual([2, 3])
      expect(results.keys!(0, 10)).toEqual([{ key: 'e/1', seq: 1 }, { key: 'e/2', seq: 2 }, { key: 'e/3', seq: 3 }])
    } finally {
      outside.close()
      await sql.close()
    }
  })
})

describe('kill -9 right after acknowledged uploads (Node, EVALSTREAM_DB file)', () => {
  let server: ServerProcess | undefined
  afterAll(async () => {
    if (server?.child.exitCode === null) await server.stop('SIGKILL')
  })

  it('loses no acknowledged event: results without gap or repeat, and the session goes on', async () => {
    const env = { EVALSTREAM_DB: join(dir, 'server', 'evalstream.db') }
    server = await spawnServer('node', { env })
    const call = (path: string, init?: RequestInit) => fetch(new URL(path, server!.baseUrl).href, init)
    const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    expect((await call('/v1/sessions', json({ session_id: 'k', eval_config: CONFIG, eval_case: MATCHING_CASE }))).status).toBe(201)
    for (let i = 0; i < 20; i++) {
      const upload = await call('/v1/sessions/k/events', json(WEATHER_EVENTS.map((e) => ({ ...e, invocationId: `inv-${i}` }))))
      expect(upload.status).toBe(202)
      await upload.text()
    }
    await server.stop('SIGKILL')

    server = await spawnServer('node', { env })
    const snapshot = await call('/v1/sessions/k')
    expect(snapshot.status).toBe(200)
    const { last_seq: lastSeq } = (await snapshot.json()) as { last_seq: number }
    const replayed = await readSse(await call('/v1/sessions/k/results'), (m) => Number(m.id) === lastSeq)
    const started = replayed.filter((m) => m.event === 'invocation.started').map((m) =>
      (m.data as { invocation_id?: string }).invocation_id
    )
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => `inv-${i}`))
    const upload = await call('/v1/sessions/k/events', json(WEATHER_EVENTS.map((e) => ({ ...e, invocationId: 'inv-after' }))))
    expect(upload.status).toBe(202)
    await upload.text()
    expect((await call('/v1/sessions/k/end', { method: 'POST' })).status).toBe(200)
    const all = await readSse(await call('/v1/sessions/k/results'))
    expect(all.map((m) => Number(m.id))).toEqual(all.map((_, i) => i + 1))
    expect(all.length).toBeGreaterThan(lastSeq)
    expect(new Set(all.map((m) => JSON.stringify(m.data))).size).toBe(all.length)
    expect(all.at(-1)?.event).toBe('case.result')
    await server.stop('SIGTERM')
  })
})

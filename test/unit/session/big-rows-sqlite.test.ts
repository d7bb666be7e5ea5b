/**
 * No row too big in SQLite on Node: the database is held to a Durable Object's 2 MB per value
 * (node:sqlite's `limits.length`), three ~990 KB text events make a ~3 MB case result, and the
 * session still ends; a fresh store over the same database (a restarted host) reads it, ends it
 * again and deletes it, leaving no part behind.
 * A split case result read as bytes is its text's bytes.
 * Covers: src/session/sqlite/chunks.ts, src/session/sqlite/journal.ts, src/session/sqlite/results.ts, src/session/sqlite/records.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { decodeFrameValue, isIngestIssue } from '../../../src/ingest/index.ts'
import { sqliteSessionStore } from '../../../src/session/store.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { CHUNK_CHARS } from '../../../src/session/sqlite/chunks.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'

/** A Durable Object's SQLite refuses any string or row over 2 MB (SQLITE_TOOBIG). */
const DURABLE_OBJECT_VALUE_BYTES = 2_000_000
const createEngine = (o: Parameters<typeof createSessionEngine>[0]) => createSessionEngine(o)

function durableLikeDb(): DatabaseSync {
  const db = new DatabaseSync(':memory:')
  db.limits.length = DURABLE_OBJECT_VALUE_BYTES
  return db
}

const bigEvent = (n: number, text = `${n}`.padEnd(990_000, 'é')) => {
  const decoded = decodeFrameValue({ author: 'agent', invocationId: `big-${n}`, content: { role: 'model', parts: [{ text }] } }, n)
  if (isIngestIssue(decoded)) throw new Error(decoded.message)
  return decoded
}

describe('SQLite session store: texts over one value are split', () => {
  it('the database really refuses a 3 MB value (the limit this test holds the store to)', () => {
    const db = durableLikeDb()
    db.exec('CREATE TABLE t (x TEXT)')
    expect(() => db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(3_000_000))).toThrow(/too big/)
  })

  it('three 990 KB events: ends, and after a restart is read, ended again and deleted', async () => {
    const db = durableLikeDb()
    const first = sqliteSessionStore(sqlFromDatabaseSync(db), { sweeper: 'manual' })
    const created = await first.create({ session_id: 's', eval_config: CONFIG }, createEngine)
    if (!created.ok) throw new Error(created.problem.detail)
    for (const n of [0, 1, 2]) expect(created.session.push(bigEvent(n))).toBeUndefined()
    const caseResult = await created.session.end()
    expect(JSON.stringify(caseResult).length).toBeGreaterThan(2_900_000)
    first.close()

    const second = sqliteSessionStore(sqlFromDatabaseSync(db), { sweeper: 'manual' })
    const rebuilt = await second.get('s', createEngine)
    expect(rebuilt?.ended).toBe(true)
    expect(rebuilt!.snapshot()).toMatchObject({ ended: true, case_result: caseResult })
    expect(rebuilt!.log.readAfter(0).at(-1)).toMatchObject({ type: 'case.result', data: caseResult })
    expect(await rebuilt!.end()).toEqual(caseResult)
    expect(await second.delete('s')).toBe(true)
    expect(await second.get('s', createEngine)).toBeUndefined()
    for (const table of ['es_sessions', 'es_journal', 'es_results', 'es_chunks']) {
      expect(db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()).toEqual({ n: 0 })
    }
  })

  it("a split case result's bytes, read as stored, are its text's: parts joined whole, emoji across their boundaries", async () => {
    const db = durableLikeDb()
    const store = sqliteSessionStore(sqlFromDatabaseSync(db), { sweeper: 'manual' })
    const created = await store.create({ session_id: 'bytes', eval_config: CONFIG }, createEngine)
    if (!created.ok) throw new Error(created.problem.detail)
    // 1.2 MB of four-byte characters, each two UTF-16 units: parts end next to or inside them.
    expect(created.session.push(bigEvent(0, `é${'😀'.repeat(300_000)}`))).toBeUndefined()
    await created.session.end()
    store.close()

    const again = sqliteSessionStore(sqlFromDatabaseSync(db), { sweeper: 'manual' })
    const rebuilt = (await again.get('bytes', createEngine))!
    const seq = rebuilt.log.lastSeq()
    const text = rebuilt.log.dataText(seq)!
    expect(text.length).toBeGreaterThan(2 * CHUNK_CHARS)
    const parts = db.prepare("SELECT COUNT(*) AS n FROM es_chunks WHERE session_id = 'bytes' AND slot = ?").get(`r:${seq}`) as { n: number }
    expect(parts.n).toBeGreaterThanOrEqual(Math.ceil(text.length / CHUNK_CHARS))
    expect(rebuilt.log.dataBytes(seq)).toEqual(new TextEncoder().encode(text))
    // The snapshot's answer puts its case result last, after the counters.
    const { case_result, ...rest } = rebuilt.snapshot()
    expect(new TextDecoder().decode(await rebuilt.snapshotBytes()) === JSON.stringify({ ...rest, case_result })).toBe(true)
  })

  it('a long spec is split too, and parts never cut a surrogate pair', async () => {
    const db = durableLikeDb()
    const store = sqliteSessionStore(sqlFromDatabaseSync(db), { sweeper: 'manual' })
    // An emoji straddling every part boundary: a split between its halves would not round-trip.
    const text = `${'a'.repeat(CHUNK_CHARS - 1)}${'😀'.repeat(CHUNK_CHARS)}`
    const evalCase = { eval_id: 'long', conversation: [], session_input: { app_name: 'a', user_id: 'u', state: { note: text } } }
    const created = await store.create({ session_id: 'spec', eval_config: CONFIG, eval_case: evalCase }, createEngine)
    if (!created.ok) throw new Error(created.problem.detail)
    store.close()
    const again = sqliteSessionStore(sqlFromDatabaseSync(db), { sweeper: 'manual' })
    const rebuilt = await again.get('spec', createEngine)
    expect((rebuilt!.spec.eval_case as typeof evalCase).session_input.state.note).toBe(text)
  })
})

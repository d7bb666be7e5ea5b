/**
 * A session's record (spec, touched and ended times) is read from SQLite once and then kept in
 * memory, written through: a request to a live session runs no SELECT of its spec. What is kept
 * stays true: touch, end, removal and a wiped storage (forgetSchema) are all seen.
 * Covers: src/session/sqlite/records.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { sqliteSessionRecords } from '../../../src/session/sqlite/records.ts'
import { type Sql, sqlFromDatabaseSync } from '../../../src/session/sql.ts'

/** node:sqlite in memory, counting the statements that read es_sessions' spec, and all SELECTs. */
function countingSql(): { sql: Sql; specReads: () => number; selects: () => number } {
  const inner = sqlFromDatabaseSync(new DatabaseSync(':memory:'))
  let reads = 0
  let selects = 0
  return {
    sql: {
      query(statement, ...params) {
        if (/SELECT spec\b/.test(statement)) reads += 1
        if (/^\s*SELECT\b/i.test(statement)) selects += 1
        return inner.query(statement, ...params)
      },
    },
    specReads: () => reads,
    selects: () => selects,
  }
}

describe('sqlite session records: metadata in memory, written through', () => {
  it('a created session is never read back from SQLite, however often it is asked for', () => {
    const { sql, specReads } = countingSql()
    const records = sqliteSessionRecords(sql)
    expect(records.insert({ session_id: 's1' }, 1000)).toBe(true)
    for (let i = 0; i < 100; i++) expect(records.read('s1')?.spec.session_id).toBe('s1')
    expect(specReads()).toBe(0)
    expect(records.insert({ session_id: 's1' }, 2000)).toBe(false)
  })

  it('a session written by an earlier process is read once, then served from memory', () => {
    const { sql, specReads } = countingSql()
    sqliteSessionRecords(sql).insert({ session_id: 'old', tenant: 't' }, 1000)
    const restarted = sqliteSessionRecords(sql)
    expect(restarted.read('old')).toEqual({ spec: { session_id: 'old', tenant: 't' }, touchedMs: 1000 })
    expect(restarted.read('old')?.spec.tenant).toBe('t')
    expect(specReads()).toBe(1)
  })

  it('touch, end and removal show in memory and in SQLite alike', () => {
    const { sql } = countingSql()
    const records = sqliteSessionRecords(sql)
    records.insert({ session_id: 's' }, 1000)
    records.touch('s', 1500)
    records.markEnded('s', 2000)
    records.markEnded('s', 3000) // ended once: the first time stays
    expect(records.read('s')).toEqual({ spec: { session_id: 's' }, touchedMs: 1500, endedMs: 2000 })
    expect(sqliteSessionRecords(sql).read('s')).toEqual({ spec: { session_id: 's' }, touchedMs: 1500, endedMs: 2000 })
    records.remove('s')
    expect(records.read('s')).toBeUndefined()
    expect(records.insert({ session_id: 's' }, 4000)).toBe(true)
  })

  it('an unknown id is not remembered, and a wiped storage forgets every record', () => {
    const { sql } = countingSql()
    const records = sqliteSessionRecords(sql)
    expect(records.read('nobody')).toBeUndefined()
    records.insert({ session_id: 'nobody' }, 1)
    expect(records.read('nobody')?.touchedMs).toBe(1)
    // A Durable Object's deleteAll wipes the tables behind the records' back.
    for (const table of ['es_sessions', 'es_journal', 'es_results', 'es_gone']) sql.query(`DROP TABLE ${table}`)
    records.forgetSchema()
    expect(records.read('nobody')).toBeUndefined()
  })

  it('creating sessions, counting them and opening their new journal and results run no SELECT', () => {
    const { sql, selects } = countingSql()
    const records = sqliteSessionRecords(sql)
    records.insert({ session_id: 'first', tenant: 'a' }, 1) // reads the (empty) directory once
    const before = selects()
    for (let i = 0; i < 50; i++) {
      expect(records.insert({ session_id: `s${i}`, tenant: i % 2 ? 'a' : 'b' }, 2)).toBe(true)
      const { results, journal } = records.storage(`s${i}`)
      expect(results.lastSeq()).toBe(0)
      expect([...journal.entries()]).toEqual([])
      expect(records.read(`unknown-${i}`)).toBeUndefined()
    }
    records.markEnded('s0', 3)
    expect([records.count(), records.count({ tenant: 'a' }), records.count({ tenant: 'b' }), records.countOpen()]).toEqual([51, 26, 25, 50])
    expect(selects()).toBe(before)
    records.remove('s1')
    expect([records.count(), records.count({ tenant: 'a' }), records.countOpen()]).toEqual([50, 25, 49])
    // A restarted process reads the directory from SQLite and counts the same.
    const restarted = sqliteSessionRecords(sql)
    expect([restarted.count(), restarted.count({ tenant: 'a' }), restarted.countOpen()]).toEqual([50, 25, 49])
  })
})

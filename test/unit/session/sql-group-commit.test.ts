/**
 * Grouped commits over node:sqlite (src/session/sql.ts): writes of one turn commit together, at the
 * end of that turn (seen from a second connection, as after a kill and restart), and an explicit
 * transaction still works inside.
 * Covers: src/session/sql.ts, src/config/results-index.ts.
 */
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { sqlTransaction } from '../../../src/config/results-index.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { testTempDir } from '../../support/temp-dir.ts'

function databases() {
  const file = join(testTempDir('evalstream-group-'), 'db.sqlite')
  const writer = new DatabaseSync(file)
  writer.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER)')
  const reader = new DatabaseSync(file)
  const count = () => Number((reader.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n)
  return { writer, count }
}

describe('sqlFromDatabaseSync with groupCommit', () => {
  it('commits the writes of one turn once, before the next turn; another connection sees them then', async () => {
    const { writer, count } = databases()
    const sql = sqlFromDatabaseSync(writer, { groupCommit: true })
    for (let i = 0; i < 100; i++) sql.query('INSERT INTO t (n) VALUES (?)', i)
    // Still this turn: the group is open, the writer reads its own writes, nobody else does yet.
    expect(Number(sql.query('SELECT COUNT(*) AS n FROM t')[0]!.n)).toBe(100)
    expect(count()).toBe(0)
    await Promise.resolve()
    expect(count()).toBe(100)
    sql.query('INSERT INTO t (n) VALUES (?)', 100)
    await new Promise((resolve) => setImmediate(resolve))
    expect(count()).toBe(101)
  })

  it('an explicit transaction commits the open group first and then runs as asked, rollback included', async () => {
    const { writer, count } = databases()
    const sql = sqlFromDatabaseSync(writer, { groupCommit: true })
    sql.query('INSERT INTO t (n) VALUES (?)', 1)
    const transaction = sqlTransaction(sql)
    expect(() =>
      transaction(() => {
        sql.query('INSERT INTO t (n) VALUES (?)', 2)
        throw new Error('undo')
      })
    ).toThrow('undo')
    // The grouped write was committed before BEGIN; the transaction's own write was rolled back.
    expect(count()).toBe(1)
    transaction(() => sql.query('INSERT INTO t (n) VALUES (?)', 3))
    expect(count()).toBe(2)
    await Promise.resolve()
    expect(count()).toBe(2)
  })

  it('without groupCommit every statement commits on its own', () => {
    const { writer, count } = databases()
    const sql = sqlFromDatabaseSync(writer)
    sql.query('INSERT INTO t (n) VALUES (?)', 1)
    expect(count()).toBe(1)
  })
})

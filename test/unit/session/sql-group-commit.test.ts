/**
 * Grouped commits over node:sqlite (src/session/sql.ts): writes made together commit together, in
 * the next microtask, or with `'turn'` once the event loop's turn is over (seen from a second
 * connection, as after a kill and restart); an explicit BEGIN commits the group first, and the
 * index's all-or-nothing batch (a savepoint) joins the group, its rollback undoing only its own writes.
 * Covers: src/session/sql.ts, src/config/results-index.ts, src/adapter/node/write-behind-rows.ts.
 */
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { sqlTransaction } from '../../../src/config/results-index.ts'
import { statementNumbers } from '../../../src/adapter/node/write-behind-rows.ts'
import { CONTROL, SAVEPOINT_CONTROL, sqlFromDatabaseSync } from '../../../src/session/sql.ts'
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

  it('with groupCommit "turn", writes of several microtasks commit once, when the turn is over', async () => {
    const { writer, count } = databases()
    const sql = sqlFromDatabaseSync(writer, { groupCommit: 'turn' })
    sql.query('INSERT INTO t (n) VALUES (?)', 1)
    await Promise.resolve()
    sql.query('INSERT INTO t (n) VALUES (?)', 2)
    await Promise.resolve()
    // Microtasks of the same turn: still one open group.
    expect(count()).toBe(0)
    expect(Number(sql.query('SELECT COUNT(*) AS n FROM t')[0]!.n)).toBe(2)
    await new Promise((resolve) => setImmediate(resolve))
    expect(count()).toBe(2)
  })

  it('committed() resolves once the open group is committed, and at once when none is open', async () => {
    const { writer, count } = databases()
    const sql = sqlFromDatabaseSync(writer, { groupCommit: 'turn' })
    let resolved = false
    await sql.committed()
    sql.query('INSERT INTO t (n) VALUES (?)', 1)
    const done = sql.committed().then(() => {
      resolved = true
      // Committed by then: another connection (a restart after a kill) sees the write.
      expect(count()).toBe(1)
    })
    await Promise.resolve()
    await Promise.resolve()
    expect(resolved).toBe(false)
    await done
    expect(resolved).toBe(true)
  })

  it('committed() resolves when a caller ends the group with its own COMMIT', async () => {
    const { writer, count } = databases()
    const sql = sqlFromDatabaseSync(writer, { groupCommit: 'turn' })
    sql.query('INSERT INTO t (n) VALUES (?)', 1)
    const done = sql.committed()
    sql.query('COMMIT')
    await done
    expect(count()).toBe(1)
  })

  it('an explicit BEGIN commits the open group first and then runs as asked, rollback included', () => {
    const { writer, count } = databases()
    const sql = sqlFromDatabaseSync(writer, { groupCommit: true })
    sql.query('INSERT INTO t (n) VALUES (?)', 1)
    sql.query('BEGIN')
    // The grouped write was committed before BEGIN.
    expect(count()).toBe(1)
    sql.query('INSERT INTO t (n) VALUES (?)', 2)
    sql.query('ROLLBACK')
    expect(count()).toBe(1)
    // After the caller's transaction, a write opens a group again.
    sql.query('INSERT INTO t (n) VALUES (?)', 3)
    expect(count()).toBe(1)
    sql.flush()
    expect(count()).toBe(2)
  })

  for (const groupCommit of [true, 'turn'] as const) {
    it(`the index's batch joins the open group (groupCommit ${groupCommit}): a failed batch undoes its own writes only`, async () => {
      const { writer, count } = databases()
      const sql = sqlFromDatabaseSync(writer, { groupCommit })
      sql.query('INSERT INTO t (n) VALUES (?)', 1)
      const transaction = sqlTransaction(sql)
      expect(() =>
        transaction(() => {
          sql.query('INSERT INTO t (n) VALUES (?)', 2)
          throw new Error('undo')
        })
      ).toThrow('undo')
      transaction(() => sql.query('INSERT INTO t (n) VALUES (?)', 3))
      // Nothing committed yet: the batches ran inside the group, which is still open.
      expect(count()).toBe(0)
      sql.query('INSERT INTO t (n) VALUES (?)', 4)
      await new Promise((resolve) => setImmediate(resolve))
      expect(sql.query('SELECT n FROM t ORDER BY n').map((r) => r.n)).toEqual([1, 3, 4])
      expect(count()).toBe(3)
    })
  }

  it('a batch on its own (no group open) is a transaction of its own', () => {
    const { writer, count } = databases()
    const sql = sqlFromDatabaseSync(writer)
    const transaction = sqlTransaction(sql)
    transaction(() => {
      sql.query('INSERT INTO t (n) VALUES (?)', 1)
      // Inside the savepoint: not visible to another connection until it is released.
      expect(count()).toBe(0)
    })
    expect(count()).toBe(1)
  })

  it('ROLLBACK TO leaves the transaction open; the writer thread drops savepoints as it drops BEGIN and COMMIT', () => {
    expect(CONTROL.test('ROLLBACK TO es_index_batch')).toBe(false)
    expect(CONTROL.test('ROLLBACK TRANSACTION TO SAVEPOINT x')).toBe(false)
    expect(CONTROL.exec('ROLLBACK')?.[1]).toBe('ROLLBACK')
    expect(CONTROL.exec('rollback transaction')?.[1]).toBe('rollback')
    expect(SAVEPOINT_CONTROL.test('ROLLBACK TO es_index_batch')).toBe(true)
    const statements = statementNumbers()
    for (const text of ['SAVEPOINT a', 'RELEASE a', 'ROLLBACK TO a', 'BEGIN', 'COMMIT']) expect(statements.of(text).kind).toBe('control')
    expect(statements.of('INSERT INTO t (n) VALUES (?)').kind).toBe('write')
  })

  it('without groupCommit every statement commits on its own', () => {
    const { writer, count } = databases()
    const sql = sqlFromDatabaseSync(writer)
    sql.query('INSERT INTO t (n) VALUES (?)', 1)
    expect(count()).toBe(1)
  })
})

/**
 * The writer threads' connections checkpoint its WAL every 10,000 pages (not SQLite's
 * 1,000) and keep NORMAL synchronous commits.
 * Covers: src/adapter/node/writer-pragmas.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { WRITER_PRAGMAS } from '../../../src/adapter/node/writer-pragmas.ts'

describe('writer pragmas', () => {
  it('set the checkpoint interval and keep NORMAL commits', () => {
    const db = new DatabaseSync(':memory:')
    expect(db.prepare('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 1000 })
    db.exec(WRITER_PRAGMAS)
    expect(db.prepare('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 10_000 })
    expect(db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 })
    db.close()
  })
})

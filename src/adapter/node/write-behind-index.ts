/**
 * The results index on the sessions database's writer thread (write-behind-worker.ts): its own
 * connection to the index's file, and its own transaction, written and committed each time right
 * after the writer commits the sessions' rows (whose requests then need not wait for the index). One thread writes both files: the index's rows come in the same message as
 * the sessions' statements of that turn, already made into columns on the main thread
 * (src/monitor/results-index-rows.ts), so the thread parses nothing and nothing else wakes up.
 */
import { DatabaseSync } from 'node:sqlite'
import type { IndexLimits } from '../../monitor/results-index-limits.ts'
import { sqliteResultsIndex } from '../../monitor/results-index.ts'
import { INDEX_ROW_VALUES, type IndexRowValue } from '../../monitor/results-index-rows.ts'
import { sqlFromDatabaseSync } from '../../session/sql.ts'
import { WRITER_PRAGMAS } from './writer-pragmas.ts'

/** Where the writer keeps the results index, and its retention. */
export type IndexTarget = { path: string; limits: IndexLimits }

export type IndexOnWriter = {
  /** Indexes one batch of rows, all or none (a failure says so on stderr and costs no other batch). */
  record(rows: readonly IndexRowValue[]): void
  /** Commits what was recorded since the last commit. */
  commit(): void
}

/** @example const index = indexOnWriter({ path: indexPathFor(dbPath), limits }); index.record(rows); index.commit() */
export function indexOnWriter(target: IndexTarget): IndexOnWriter {
  const db = new DatabaseSync(target.path)
  db.exec(WRITER_PRAGMAS)
  // No transaction option: this module's BEGIN and COMMIT group every batch of a writer's commit.
  const index = sqliteResultsIndex(sqlFromDatabaseSync(db), { limits: target.limits })
  let open = false
  return {
    record(rows) {
      if (!open) {
        db.exec('BEGIN')
        open = true
      }
      db.exec('SAVEPOINT es_index_batch')
      try {
        index.recordRows(rows)
        db.exec('RELEASE es_index_batch')
      } catch (e) {
        db.exec('ROLLBACK TO es_index_batch')
        db.exec('RELEASE es_index_batch')
        const count = rows.length / INDEX_ROW_VALUES
        console.error(`evalstream: ${count} result(s) not indexed: ${e instanceof Error ? e.message : String(e)}`)
      }
    },
    commit() {
      if (!open) return
      open = false
      try {
        db.exec('COMMIT')
      } catch (e) {
        console.error(`evalstream: SQLite commit of the results index failed: ${e instanceof Error ? e.message : String(e)}`)
        if (db.isTransaction) db.exec('ROLLBACK')
      }
    },
  }
}

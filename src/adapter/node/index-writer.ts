/**
 * The results index with a database file on Node: written by the sessions database's writer thread
 * (write-behind-sql.ts, write-behind-index.ts) into its own file beside the sessions'
 * (`evalstream-index.db` next to `evalstream.db`), and read here, on the main thread, through a
 * connection of its own. One thread writes both files: the feed's results become rows on this thread
 * and leave with the turn's one message to the writer, which writes and commits them right after
 * it commits the sessions' rows of that window.
 *
 * Durability window: a result is indexed within WRITE_BEHIND_FLUSH_MS (plus the commit) of being
 * logged; a kill -9 inside that window loses those rows from the index (never from the session's own
 * log, whose rows are committed before the request that made them is answered: the writer commits
 * the sessions' rows first, and writes the index's after, so no request waits for the index). Readers see their
 * writes all the same: every read of the index first has the writer commit what was sent before it
 * (Atomics.wait, at most WRITE_BEHIND_SETTLE_MS), so /v1/results right after an upload shows that
 * upload's results.
 */
import { basename, dirname, extname, join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import type { FedResult } from '../../session/result-feed.ts'
import { type Sql, sqlFromDatabaseSync } from '../../session/sql.ts'
import type { WriteBehindSql } from './write-behind-sql.ts'

export type IndexWriter = {
  /** The index database on the main thread: reads wait for the writer first. */
  readSql: Sql
  /** Hands a batch to the writer (as rows, with the turn's message; nothing is written here). */
  write(batch: readonly FedResult[]): void
  /** Closes the main thread's connection (the writer commits and stops with the sessions' database). */
  close(): void
}

/** `.evalstream/evalstream.db` -> `.evalstream/evalstream-index.db`. */
export function indexPathFor(sessionsPath: string): string {
  const ext = extname(sessionsPath)
  return join(dirname(sessionsPath), `${basename(sessionsPath, ext)}-index${ext || '.db'}`)
}

/**
 * `writer` must have been started with this index (`writeBehindSql(dbPath, { index: { path, limits } })`).
 * @example
 * const index = indexOnSessionsWriter(writer, indexPathFor(dbPath))
 * resultsIndexFromEnv(process.env, index.readSql, feed, { write: index.write })
 */
export function indexOnSessionsWriter(writer: WriteBehindSql, path: string): IndexWriter {
  const db = new DatabaseSync(path)
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000')
  const reads = sqlFromDatabaseSync(db)
  return {
    readSql: {
      query(statement, ...params) {
        writer.settleIndex()
        return reads.query(statement, ...params)
      },
    },
    write: (batch) => writer.indexResults(batch),
    close: () => db.close(),
  }
}

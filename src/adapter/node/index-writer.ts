/**
 * The results index written off the event loop (Node, with a database file): the feed's results go
 * to a worker thread (index-worker.ts) that owns the index's writing connection and commits every
 * INDEX_FLUSH_MS or INDEX_BATCH_ROWS rows. The index lives in its own file beside the sessions'
 * (`evalstream-index.db` next to `evalstream.db`), so the worker's commits never hold a lock the
 * sessions' writes on the main thread would wait for.
 *
 * Durability window: a result is indexed within INDEX_FLUSH_MS (plus the commit) of being logged;
 * a kill -9 inside that window loses those rows from the index (never from the session's own log,
 * which is written on the request path). Readers see their writes all the same: every read of the
 * index first waits (Atomics.wait, at most SETTLE_DEADLINE_MS) for the worker to commit what was
 * sent before it, so /v1/results right after an upload shows that upload's results.
 */
import { basename, dirname, extname, join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { Worker } from 'node:worker_threads'
import type { IndexLimits } from '../../monitor/results-index-limits.ts'
import { indexRowOf, type IndexRowValue, pushIndexRow } from '../../monitor/results-index-rows.ts'
import type { FedResult } from '../../session/result-feed.ts'
import { resultDataJson } from '../../session/result-json.ts'
import { type Sql, sqlFromDatabaseSync } from '../../session/sql.ts'
import type { IndexWorkerData, IndexWorkerMessage } from './index-worker.ts'
import { siblingModule } from './sibling-module.ts'

/** The worker commits what it has at least this often (ms). */
export const INDEX_FLUSH_MS = 5
/** ...or as soon as this many rows wait. */
export const INDEX_BATCH_ROWS = 2_000
/** A reader waits at most this long for the worker (ms); past it, it reads what is committed. */
export const SETTLE_DEADLINE_MS = 2_000
/** The writer thread's name, as tools that list a process's threads show it (Linux keeps 15 characters). */
export const INDEX_THREAD_NAME = 'es-index-db'

export type IndexWriter = {
  /** The index database on the main thread: reads wait for the worker first. */
  readSql: Sql
  /** Hands a batch to the worker (as flat rows, pushIndexRow; nothing is written here). */
  write(batch: readonly FedResult[]): void
  /** Waits until every batch sent so far is committed (or the deadline passed). */
  settle(): void
  /** Commits what is queued and stops the worker. */
  close(): Promise<void>
}

/** `.evalstream/evalstream.db` -> `.evalstream/evalstream-index.db`. */
export function indexPathFor(sessionsPath: string): string {
  const ext = extname(sessionsPath)
  return join(dirname(sessionsPath), `${basename(sessionsPath, ext)}-index${ext || '.db'}`)
}

/**
 * @example
 * const writer = startIndexWriter(indexPathFor(dbPath), limits)
 * resultsIndexFromEnv(process.env, writer.readSql, feed, { write: writer.write })
 */
export function startIndexWriter(
  path: string,
  limits: IndexLimits,
  /** `settleDeadlineMs`: how long a read waits for the worker (SETTLE_DEADLINE_MS; a test proving the wait sets it out of reach). */
  options: { flushMs?: number; maxBatchRows?: number; settleDeadlineMs?: number } = {},
): IndexWriter {
  const counters = new SharedArrayBuffer(8)
  const view = new Int32Array(counters)
  const workerData: IndexWorkerData = {
    path,
    limits,
    flushMs: options.flushMs ?? INDEX_FLUSH_MS,
    maxBatchRows: options.maxBatchRows ?? INDEX_BATCH_ROWS,
    counters,
  }
  // The worker creates the schema before the main thread's connection reads it.
  const worker = new Worker(siblingModule('./index-worker', import.meta.url), { workerData, name: INDEX_THREAD_NAME })
  worker.unref()
  let alive = true
  worker.on('error', (e) => {
    alive = false
    console.error(`evalstream: the results index writer stopped: ${e instanceof Error ? e.message : String(e)}`)
  })
  worker.on('exit', () => {
    alive = false
  })
  let sent = 0
  let queued: FedResult[] = []
  const post = () => {
    if (!alive || queued.length === 0) return
    sent += 1
    // Flat rows of primitives, not the results' objects: a structured clone of the objects was ~10%
    // of the server's CPU under load. Each result's data is the text its session's row was written
    // with, not stringified again, and the thread parses nothing.
    const rows: IndexRowValue[] = []
    for (const r of queued) pushIndexRow(rows, indexRowOf(r, resultDataJson))
    queued = []
    worker.postMessage({ rows, n: sent } satisfies IndexWorkerMessage)
  }
  const settle = () => {
    post()
    if (!alive || Atomics.load(view, 1) >= sent) return
    worker.postMessage({ flush: true } satisfies IndexWorkerMessage)
    const deadline = performance.now() + (options.settleDeadlineMs ?? SETTLE_DEADLINE_MS)
    for (let seen = Atomics.load(view, 1); seen < sent && alive; seen = Atomics.load(view, 1)) {
      const left = deadline - performance.now()
      if (left <= 0) return
      Atomics.wait(view, 1, seen, left)
    }
  }
  const db = new DatabaseSync(path)
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000')
  const reads = sqlFromDatabaseSync(db)
  return {
    readSql: {
      query(statement, ...params) {
        settle()
        return reads.query(statement, ...params)
      },
    },
    write(batch) {
      if (!alive || batch.length === 0) return
      // One message per turn of the event loop (setImmediate runs after the turn's I/O callbacks).
      if (queued.length === 0) setImmediate(post)
      for (const r of batch) queued.push(r)
    },
    settle,
    async close() {
      settle()
      await worker.terminate()
      db.close()
    },
  }
}

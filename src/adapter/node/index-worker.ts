/**
 * The results index's writer thread (index-writer.ts starts it): owns the only writing connection
 * to the index database, takes batches of results from the main thread and commits them every
 * `flushMs` or every `maxBatchRows` rows, whichever comes first, so indexing (statements, commits,
 * pruning) never runs on the event loop that serves requests. After each commit it publishes how
 * many batches are in, so a reader on the main thread can wait for exactly what was sent before it.
 */
import { DatabaseSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'
import { recordCounted, sqlTransaction } from '../../config/results-index.ts'
import { sqliteResultsIndex } from '../../monitor/results-index.ts'
import { INDEX_ROW_VALUES, type IndexRowValue } from '../../monitor/results-index-rows.ts'
import { WRITER_PRAGMAS } from './writer-pragmas.ts'
import type { IndexLimits } from '../../monitor/results-index-limits.ts'
import { sqlFromDatabaseSync } from '../../session/sql.ts'

export type IndexWorkerData = { path: string; limits: IndexLimits; flushMs: number; maxBatchRows: number; counters: SharedArrayBuffer }
/** From the main thread: a batch of flat rows (pushIndexRow; numbered from 1), or a reader asking for the queue to go in now. */
export type IndexWorkerMessage = { rows: IndexRowValue[]; n: number } | { flush: true }

const data = workerData as IndexWorkerData
const db = new DatabaseSync(data.path)
db.exec(WRITER_PRAGMAS)
const sql = sqlFromDatabaseSync(db)
const index = sqliteResultsIndex(sql, { limits: data.limits, transaction: sqlTransaction(sql) })
/** [0]: batches the main thread sent; [1]: batches committed here. */
const counters = new Int32Array(data.counters)
let queue: IndexRowValue[] = []
let lastBatch = 0
let timer: ReturnType<typeof setTimeout> | undefined

const commit = () => {
  if (timer !== undefined) clearTimeout(timer)
  timer = undefined
  const batch = queue
  queue = []
  recordCounted(batch.length / INDEX_ROW_VALUES, () => index.recordRows(batch))
  Atomics.store(counters, 1, lastBatch)
  Atomics.notify(counters, 1)
}

parentPort!.on('message', (message: IndexWorkerMessage) => {
  if ('flush' in message) return commit()
  if (queue.length === 0) queue = message.rows
  else for (const value of message.rows) queue.push(value)
  lastBatch = message.n
  if (queue.length >= data.maxBatchRows * INDEX_ROW_VALUES) commit()
  else timer ??= setTimeout(commit, data.flushMs)
})

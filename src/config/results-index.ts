/**
 * The results index as a host sets it up: limits from the environment, fed from the host's result
 * feed. Node and Deno call it with their EVALSTREAM_DB (or an in-memory database); the Workers
 * index Durable Object builds its index directly, fed by the session objects.
 */
import type { FedResult, ResultFeed } from '../session/result-feed.ts'
import { type ResultsIndex, sqliteResultsIndex } from '../monitor/results-index.ts'
import { DEFAULT_INDEX_LIMITS, INDEX_LIMIT_VARS, type IndexLimits } from '../monitor/results-index-limits.ts'
import type { Sql } from '../session/sql.ts'
import { type Env, type Read, wholeNumbersFromEnv } from './env.ts'

export type IndexSetup = Read<{ index: ResultsIndex; stop(): void }>

/**
 * `write`: where the feed's batches go instead of `index.recordAll` on this thread (the Node
 * adapter's writer thread, src/adapter/node/index-writer.ts); `sql` then only reads.
 */
export type IndexWriting = { write?: (batch: readonly FedResult[]) => void }

/**
 * @example
 * const setup = resultsIndexFromEnv(process.env, db.indexSql, deps.feed)
 * if (setup.ok) createApp({ ...deps, resultsIndex: setup.value.index })
 */
export function resultsIndexFromEnv(env: Env, sql: Sql, feed: ResultFeed | undefined, options: IndexWriting = {}): IndexSetup {
  const limits = indexLimitsFromEnv(env)
  if (!limits.ok) return limits
  const index = sqliteResultsIndex(sql, { limits: limits.value, transaction: sqlTransaction(sql) })
  const stop = feed ? watchResults(feed, options.write ? { recordAll: options.write } : index) : () => {}
  const { maxRows, maxAgeMs } = limits.value
  return {
    ok: true,
    value: { index, stop },
    notes: [`results index: at most ${maxRows} results, ${maxAgeMs} ms (EVALSTREAM_INDEX_MAX_ROWS, EVALSTREAM_INDEX_MAX_AGE_MS)`],
  }
}

/**
 * Unset or empty variables keep their default; anything but a whole number >= 1 is an error.
 * @example
 * indexLimitsFromEnv({ EVALSTREAM_INDEX_MAX_ROWS: '5000' }) // { ok: true, value: { maxRows: 5000, maxAgeMs: 2592000000 } }
 */
export function indexLimitsFromEnv(env: Env): Read<IndexLimits> {
  return wholeNumbersFromEnv(env, INDEX_LIMIT_VARS, DEFAULT_INDEX_LIMITS)
}

/**
 * Records one batch; an index that fails says so on stderr with the batch's size and the reason,
 * and the results are not indexed (the sessions keep them), rather than the caller failing.
 * @example recordBatch(index, batch)
 */
export function recordBatch(index: { recordAll(results: readonly FedResult[]): unknown }, batch: readonly FedResult[]): void {
  try {
    index.recordAll(batch)
  } catch (e) {
    console.error(`evalstream: ${batch.length} result(s) not indexed: ${e instanceof Error ? e.message : String(e)}`)
  }
}

/**
 * Feeds an index from a result feed; returns the function that stops it. The watcher only queues;
 * a microtask later the queue goes in with one `recordAll` (one transaction when the index has
 * one), so a burst of results costs one commit and readers see them before any I/O runs.
 * @example const stop = watchResults(deps.feed, index)
 */
export function watchResults(feed: ResultFeed, index: { recordAll(results: readonly FedResult[]): unknown }): () => void {
  let queue: FedResult[] = []
  const flush = () => {
    const batch = queue
    queue = []
    recordBatch(index, batch)
  }
  return feed.watch((result) => {
    if (queue.push(result) === 1) queueMicrotask(flush)
  })
}

/**
 * All or nothing over statements of the `Sql` interface, for node:sqlite: a savepoint, which is a
 * transaction of its own outside one and joins a grouped commit's transaction inside one (sql.ts),
 * so a batch of the index costs no commit of its own. A Durable Object's storage refuses it (it
 * batches a request's writes by itself): then `fn` just runs.
 * @example sqliteResultsIndex(sql, { transaction: sqlTransaction(sql) })
 */
export function sqlTransaction(sql: Sql): (fn: () => void) => void {
  return (fn) => {
    try {
      sql.query('SAVEPOINT es_index_batch')
    } catch {
      return fn()
    }
    try {
      fn()
      sql.query('RELEASE es_index_batch')
    } catch (e) {
      sql.query('ROLLBACK TO es_index_batch')
      sql.query('RELEASE es_index_batch')
      throw e
    }
  }
}

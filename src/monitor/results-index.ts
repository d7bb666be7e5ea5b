/**
 * The results index: every decided result of every session, kept in SQLite for monitoring across
 * sessions (GET /v1/results, GET /v1/stats, GET /v1/sessions and the dashboard). It is fed from the
 * result feed (src/session/result-feed.ts), so it sees each result once; a result that arrives twice
 * anyway (a Worker's retried delivery) is recognised by (session, seq, time) and not counted again.
 *
 * Kept: `criterion.result` (criterion, status, score), `case.result` (the case status) and `error`
 * rows; `invocation.started` and `criterion.progress` only move the session's row. A later
 * revision of a criterion on the same invocation marks the earlier one not current, and the
 * aggregates count current rows only. Retention: IndexLimits (results-index-limits.ts).
 *
 * One implementation over the `Sql` interface: node:sqlite on Node and Deno (the EVALSTREAM_DB
 * file, or an in-memory database), `ctx.storage.sql` in the index Durable Object on Workers.
 */
import type { FedResult } from '../session/result-feed.ts'
import { cachedResultDataJson } from '../session/result-json.ts'
import { AGE_PRUNE_INTERVAL_MS, DEFAULT_INDEX_LIMITS, type IndexLimits } from './results-index-limits.ts'
import { INDEX_ROW_VALUES, type IndexRow, indexRowOf, type IndexRowValue, readIndexRow } from './results-index-rows.ts'
import { type IndexReads, indexReads } from './results-index-query.ts'
import type { Sql, SqlValue } from '../session/sql.ts'

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS es_index_results (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
    seq INTEGER NOT NULL, at_ms INTEGER NOT NULL, tenant TEXT NOT NULL, app TEXT NOT NULL, type TEXT NOT NULL,
    criterion TEXT, invocation_index INTEGER, status TEXT, score REAL, threshold REAL,
    current INTEGER NOT NULL DEFAULT 1, data TEXT NOT NULL, UNIQUE (session_id, seq, at_ms))`,
  // Age pruning walks time; the stats queries read this index alone (it covers every column they use).
  'CREATE INDEX IF NOT EXISTS es_index_results_age ON es_index_results (at_ms)',
  'CREATE INDEX IF NOT EXISTS es_index_results_stats ON es_index_results (tenant, type, current, at_ms, criterion, status, score, app)',
  // A revision finds the current row of its (session, invocation, criterion) by key, not by a scan
  // of the session's rows (which made one long, often reopened invocation quadratic).
  'CREATE INDEX IF NOT EXISTS es_index_results_current ON es_index_results (session_id, invocation_index, criterion) WHERE current = 1',
  `CREATE TABLE IF NOT EXISTS es_index_sessions (session_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, app TEXT NOT NULL,
    first_ms INTEGER NOT NULL, last_ms INTEGER NOT NULL, invocations INTEGER NOT NULL DEFAULT 0, status TEXT)`,
  'CREATE INDEX IF NOT EXISTS es_index_sessions_time ON es_index_sessions (tenant, last_ms)',
]

const INSERT_RESULT =
  `INSERT INTO es_index_results (session_id, seq, at_ms, tenant, app, type, criterion, invocation_index, status, score, threshold, data)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`

export type ResultsIndex = IndexReads & {
  /** Takes one result (synchronous and quick: a few statements). Returns false when it was a repeat. */
  record(result: FedResult): boolean
  /** Takes many in one transaction when the options gave one; returns how many were new. */
  recordAll(results: readonly FedResult[]): number
  /** The same for rows made elsewhere (pushIndexRow): a writer thread's batch, nothing to parse. */
  recordRows(values: readonly IndexRowValue[]): number
  /** Drops what the limits no longer allow; `record` calls it as needed, tests call it directly. */
  prune(): void
  readonly limits: IndexLimits
  /** The clock that stamps the age limit; the routes end the default /v1/stats window by it. */
  readonly now: () => number
}

export type ResultsIndexOptions = {
  limits?: Partial<IndexLimits>
  now?: () => number
  /** Runs `fn` in one transaction (node:sqlite: one commit per batch instead of per statement). */
  transaction?: (fn: () => void) => void
}

/**
 * @example
 * const index = sqliteResultsIndex(sqlFromDatabaseSync(new DatabaseSync(':memory:')))
 * const stop = watchResults(feed, index) // src/config/results-index.ts
 * index.stats({ tenant: '' })
 */
export function sqliteResultsIndex(sql: Sql, options: ResultsIndexOptions = {}): ResultsIndex {
  const limits: IndexLimits = { ...DEFAULT_INDEX_LIMITS, ...options.limits }
  const now = options.now ?? Date.now
  for (const statement of SCHEMA) sql.query(statement)
  let rows = Number(sql.query('SELECT COUNT(*) AS n FROM es_index_results')[0]?.n ?? 0)
  let lastAgePrune = 0

  // Writes go through `run` where the Sql has one (node:sqlite): no RETURNING clause, no row
  // objects. The Durable Object's Sql has only `query`, and RETURNING says what changed there.
  const write = (statement: string, ...params: SqlValue[]): void =>
    void (sql.run ? sql.run(statement, ...params) : sql.query(statement, ...params))
  /** Deletes, and says how many rows went. */
  const deleted = (statement: string, ...params: SqlValue[]): number =>
    sql.run ? sql.run(statement, ...params).changes : sql.query(`${statement} RETURNING 1 AS x`, ...params).length
  /** Inserts a result's row; its id, or undefined when (session, seq, time) was there already. */
  const insertRow = (...params: SqlValue[]): number | undefined => {
    if (!sql.run) {
      const id = sql.query(`${INSERT_RESULT} RETURNING id`, ...params)[0]?.id
      return id === undefined ? undefined : Number(id)
    }
    const done = sql.run(INSERT_RESULT, ...params)
    return done.changes > 0 ? done.lastRowId : undefined
  }

  const touchSession = (r: IndexRow, invocations: number, status: string | null, firstMs = r.atMs, lastMs = r.atMs) =>
    write(
      `INSERT INTO es_index_sessions (session_id, tenant, app, first_ms, last_ms, invocations, status) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET last_ms = MAX(last_ms, excluded.last_ms),
       invocations = MAX(invocations, excluded.invocations), status = COALESCE(excluded.status, status)`,
      r.sessionId,
      r.tenant,
      r.app,
      firstMs,
      lastMs,
      invocations,
      status,
    )

  /** Oldest first, down to maxRows: at steady state one row per insert, by the primary key. */
  const trimRows = () => {
    const excess = rows - limits.maxRows
    // The changes (or RETURNING) count what went without a COUNT(*) scan per insert.
    if (excess > 0) {
      rows -= deleted('DELETE FROM es_index_results WHERE id IN (SELECT id FROM es_index_results ORDER BY id LIMIT ?)', excess)
    }
  }

  const prune = () => {
    const cutoff = now() - limits.maxAgeMs
    lastAgePrune = now()
    rows -= deleted('DELETE FROM es_index_results WHERE at_ms < ?', cutoff)
    trimRows()
    // A session goes with its last result (or, with none, once it is older than the age limit).
    sql.query(
      `DELETE FROM es_index_sessions WHERE last_ms < ? OR (last_ms < COALESCE((SELECT MIN(at_ms) FROM es_index_results), ?)
       AND NOT EXISTS (SELECT 1 FROM es_index_results r WHERE r.session_id = es_index_sessions.session_id))`,
      cutoff,
      cutoff,
    )
  }

  /** Indexes one result's row and says what it changes in its session's row (written by the caller). */
  const insert = (row: IndexRow, touch: (r: IndexRow, invocations: number, status: string | null) => void): boolean => {
    const { type } = row
    if (type === 'invocation.started' || type === 'criterion.progress') {
      // Their invocation_index alone: the index keeps no row for them (indexRowOf sends nothing else).
      touch(row, row.invocation! + 1, null)
      return true
    }
    const id = insertRow(
      row.sessionId,
      row.seq,
      row.atMs,
      row.tenant,
      row.app,
      type,
      row.criterion,
      row.invocation,
      row.status,
      row.score,
      row.threshold,
      row.data,
    )
    if (id === undefined) return false
    rows += 1
    if (row.revision > 0) {
      // The latest revision of a criterion on an invocation is the one that counts (revision 0,
      // the common case, has nothing before it: no statement for it).
      write(
        'UPDATE es_index_results SET current = 0 WHERE session_id = ? AND invocation_index = ? AND criterion = ? AND id <> ? AND current = 1',
        row.sessionId,
        row.invocation,
        row.criterion,
        id,
      )
    }
    touch(row, row.invocation === null ? 0 : row.invocation + 1, type === 'case.result' ? row.status : null)
    if (now() - lastAgePrune >= AGE_PRUNE_INTERVAL_MS) prune()
    else trimRows()
    return true
  }

  // A batch touches each of its sessions' rows once, not once per result: the upsert was half the
  // index's statements. The row ends the same: the first result's time, the latest, most invocations, last status.
  const insertAll = (count: number, rowAt: (i: number) => IndexRow) => {
    let added = 0
    const all = () => {
      const touches = new Map<string, SessionTouch>()
      const touch = (r: IndexRow, invocations: number, status: string | null) => {
        const seen = touches.get(r.sessionId)
        if (!seen) return void touches.set(r.sessionId, { r, firstMs: r.atMs, lastMs: r.atMs, invocations, status })
        seen.lastMs = Math.max(seen.lastMs, r.atMs)
        seen.invocations = Math.max(seen.invocations, invocations)
        if (status !== null) seen.status = status
      }
      for (let i = 0; i < count; i++) if (insert(rowAt(i), touch)) added += 1
      for (const t of touches.values()) touchSession(t.r, t.invocations, t.status, t.firstMs, t.lastMs)
    }
    if (options.transaction) options.transaction(all)
    else all()
    return added
  }
  // A result fed on this thread was just logged, so its text is most likely still kept
  // (result-json.ts): the index writes that text instead of stringifying the data again.
  const record = (r: FedResult): boolean => insert(indexRowOf(r, cachedResultDataJson), touchSession)
  const recordAll = (results: readonly FedResult[]) => insertAll(results.length, (i) => indexRowOf(results[i]!, cachedResultDataJson))
  const recordRows = (values: readonly IndexRowValue[]) =>
    insertAll(values.length / INDEX_ROW_VALUES, (i) => readIndexRow(values, i * INDEX_ROW_VALUES))
  return { ...indexReads(sql, () => now() - limits.maxAgeMs), record, recordAll, recordRows, prune, limits, now }
}

/** What a batch's results change in one session's row, merged. */
type SessionTouch = { r: IndexRow; firstMs: number; lastMs: number; invocations: number; status: string | null }

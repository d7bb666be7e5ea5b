/**
 * A session's result log in SQLite (`es_results`): every logged result with its seq, what a
 * resumed stream and an ended session's case result read back. Texts longer than one SQLite value
 * are split over rows (chunks.ts).
 */
import type { ResultEvent } from '../../engine/types.ts'
import { rememberResultDataJson, resultDataJson } from '../result-json.ts'
import type { ResultStorage } from '../result-log.ts'
import { sqlBytes } from './chunks.ts'
import { committedUpTo, readFor, type SessionSql } from './journal.ts'
import type { SqlRow } from '../sql.ts'

/** `fresh`: created by this process just now, so there is nothing stored to count. */
export function sqliteResults(id: string, sql: SessionSql, fresh: boolean): ResultStorage {
  return new SqliteResults(id, sql, fresh)
}

/**
 * A class, not an object of closures, for the same reason as the journal: its methods are shared
 * by every session. Rows it did not insert itself were committed before it was made (a session
 * that is not fresh counts its rows with a read that waits for the writer).
 */
class SqliteResults implements ResultStorage {
  #id: string
  #sql: SessionSql
  #fresh: boolean
  /** The last seq this object inserted, and the last one known to be committed. */
  #inserted = 0
  #committed = 0

  /**
   * Every result is a row: the heap holds none of them once written (writes in flight are the
   * writer's). Rows of an in-memory database still cost the process memory: they count as held.
   */
  get outsideHeap(): boolean {
    return this.#sql.inMemory !== true
  }

  constructor(id: string, sql: SessionSql, fresh: boolean) {
    this.#id = id
    this.#sql = sql
    this.#fresh = fresh
  }

  lastSeq(): number {
    if (this.#fresh) return 0
    const last = Number(this.#sql.read('SELECT COALESCE(MAX(seq), 0) AS last FROM es_results WHERE session_id = ?', this.#id)[0]?.last ?? 0)
    // Read after waiting for the writer: every row there is now is committed.
    this.#committed = Math.max(this.#committed, last)
    return last
  }

  insert(e: ResultEvent): void {
    const data = this.#sql.chunks.put(this.#id, `r:${e.seq}`, resultDataJson(e.data))
    this.#sql.write(
      'INSERT INTO es_results (session_id, seq, type, key, data) VALUES (?, ?, ?, ?, ?)',
      this.#id,
      e.seq,
      e.type,
      e.key,
      data,
    )
    this.#inserted = e.seq
  }

  /** Waits, without blocking the thread, until every result inserted so far is committed. */
  async settle(): Promise<void> {
    const upTo = await committedUpTo(this.#sql, this.#inserted)
    this.#committed = Math.max(this.#committed, upTo)
  }

  readAfter(after: number): ResultEvent[] {
    return this.#run()('SELECT seq, type, key, data FROM es_results WHERE session_id = ? AND seq > ? ORDER BY seq', this.#id, after)
      .map((row) => this.#event(row))
  }

  readBetween(first: number, last: number, type: string): ResultEvent[] {
    // Rows up to `last` may all be committed while newer ones are queued: then no wait for the writer.
    return readFor(this.#sql, this.#committed, last)(
      'SELECT seq, type, key, data FROM es_results WHERE session_id = ? AND seq BETWEEN ? AND ? AND type = ? ORDER BY seq',
      this.#id,
      first,
      last,
      type,
    ).map((row) => this.#event(row))
  }

  readTextsBetween(first: number, last: number, type: string): Array<{ seq: number; text: string }> {
    return readFor(this.#sql, this.#committed, last)(
      'SELECT seq, data FROM es_results WHERE session_id = ? AND seq BETWEEN ? AND ? AND type = ? ORDER BY seq',
      this.#id,
      first,
      last,
      type,
    ).map((row) => ({ seq: Number(row.seq), text: this.#sql.chunks.get(this.#id, `r:${row.seq}`, String(row.data)) }))
  }

  dataText(seq: number): string | undefined {
    const row = this.#run()('SELECT data FROM es_results WHERE session_id = ? AND seq = ?', this.#id, seq)[0]
    return row && this.#sql.chunks.get(this.#id, `r:${seq}`, String(row.data))
  }

  dataBytes(seq: number): Uint8Array<ArrayBuffer> | undefined {
    // As stored, without a string: node:sqlite made a ~200 KB case result's text at ~4x the cost
    // of its bytes, and the answer wanted the bytes anyway.
    const row = this.#run()('SELECT CAST(data AS BLOB) AS data FROM es_results WHERE session_id = ? AND seq = ?', this.#id, seq)[0]
    return row && this.#sql.chunks.getBytes(this.#id, `r:${seq}`, sqlBytes(row.data))
  }

  // Without the data: a replay of a long session would otherwise parse every result it ever had.
  keys(after: number, limit: number): Array<{ key: string; seq: number }> {
    return this.#run()('SELECT seq, key FROM es_results WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?', this.#id, after, limit)
      .map((r) => ({ key: String(r.key), seq: Number(r.seq) }))
  }

  /** Once everything this object inserted is committed, a read need not wait for the writer. */
  #run() {
    return readFor(this.#sql, this.#committed, this.#inserted)
  }

  // Rows this store wrote itself from logged results: read back as they were written.
  #event(row: SqlRow): ResultEvent {
    const text = this.#sql.chunks.get(this.#id, `r:${row.seq}`, String(row.data))
    const data = JSON.parse(text)
    // A case result read back (a stream that starts after the end) is written out as its stored text, not stringified again.
    if (row.type === 'case.result') rememberResultDataJson(data, text)
    return { seq: Number(row.seq), type: row.type, key: String(row.key), data } as ResultEvent
  }
}

/**
 * A session's journal in SQLite (`es_journal`): every input in order, what a rebuilt session
 * replays. Texts longer than one SQLite value are split over rows (chunks.ts).
 */
import type { Journal, JournalEntry } from '../journal.ts'
import type { SqlChunks } from './chunks.ts'
import type { SqlRun as Run } from '../sql.ts'

/** Journal entries read per query during a replay: each slice of the replay reads only its own. */
export const JOURNAL_PAGE_ROWS = 200

/**
 * The statements a session's journal and results run, one object shared by every session.
 * `readCommitted` reads without first waiting for writes still queued (Node's writer thread); it
 * is used only once `durable` said every row the reader wrote is committed.
 */
export type SessionSql = {
  read: Run
  readCommitted: Run
  write: Run
  chunks: SqlChunks
  durable?: () => Promise<unknown>
  /** The database is in this process's memory (`:memory:`): its rows cost memory as objects would, only less of it. */
  inMemory?: boolean
}

/**
 * Resolves to `upTo` (what a reader had written when it asked) once every write queued so far is
 * committed; at once where writes commit as they run.
 */
export async function committedUpTo(sql: SessionSql, upTo: number): Promise<number> {
  if (sql.durable) await sql.durable()
  return upTo
}

/** The read for a reader whose rows up to `last` are committed up to `committed`: it waits for the writer only when some may not be. */
export function readFor(sql: SessionSql, committed: number, last: number): Run {
  return committed >= last ? sql.readCommitted : sql.read
}

/** `fresh`: created by this process just now, so there is no stored entry to count or read. */
export function sqliteJournal(id: string, sql: SessionSql, fresh: boolean): Journal {
  const n = fresh ? 0 : Number(sql.read('SELECT COALESCE(MAX(n), 0) AS n FROM es_journal WHERE session_id = ?', id)[0]?.n ?? 0)
  return new SqliteJournal(id, sql, fresh, n)
}

/**
 * A class, not an object of closures: its methods are shared by every session's journal (a
 * generator function made per session also made a prototype object per session, 0.3 KiB of an
 * idle session's 4).
 */
class SqliteJournal implements Journal {
  #id: string
  #sql: SessionSql
  #fresh: boolean
  #n: number
  /** Entries up to this one are known to be committed (all of them, for a journal read from the file). */
  #committed: number

  constructor(id: string, sql: SessionSql, fresh: boolean, n: number) {
    this.#id = id
    this.#sql = sql
    this.#fresh = fresh
    this.#n = n
    this.#committed = n
  }

  /** Every entry is in the table: a session may let go of its events and read them back. */
  get rereadable(): boolean {
    return true
  }

  get inMemory(): boolean {
    return this.#sql.inMemory === true
  }

  append(entry: JournalEntry): void {
    this.#n += 1
    const text = this.#sql.chunks.put(this.#id, `j:${this.#n}`, JSON.stringify(entry))
    this.#sql.write('INSERT INTO es_journal (session_id, n, entry) VALUES (?, ?, ?)', this.#id, this.#n, text)
  }

  /**
   * Waits, without blocking the thread, until every entry appended so far is committed: a read
   * after it does not wait for the writer (which would commit every session's queued writes first).
   */
  async settle(): Promise<void> {
    const upTo = await committedUpTo(this.#sql, this.#n)
    this.#committed = Math.max(this.#committed, upTo)
  }

  // A page at a time, so each slice of a replay parses only the entries it feeds.
  *entries(): Generator<JournalEntry> {
    if (this.#fresh && this.#n === 0) return
    const read = readFor(this.#sql, this.#committed, this.#n)
    let after = 0
    for (;;) {
      const rows = read(
        'SELECT n, entry FROM es_journal WHERE session_id = ? AND n > ? ORDER BY n LIMIT ?',
        this.#id,
        after,
        JOURNAL_PAGE_ROWS,
      )
      for (const row of rows) {
        after = Number(row.n)
        yield JSON.parse(this.#sql.chunks.get(this.#id, `j:${row.n}`, String(row.entry))) as JournalEntry
      }
      if (rows.length < JOURNAL_PAGE_ROWS) return
    }
  }
}

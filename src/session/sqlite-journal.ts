/**
 * A session's journal in SQLite (`es_journal`): every input in order, what a rebuilt session
 * replays. Texts longer than one SQLite value are split over rows (sql-chunks.ts).
 */
import type { Journal, JournalEntry } from './session.ts'
import type { SqlChunks } from './sql-chunks.ts'
import type { SqlRun as Run } from './sql.ts'

/** Journal entries read per query during a replay: each slice of the replay reads only its own. */
export const JOURNAL_PAGE_ROWS = 200

/** `fresh`: created by this process just now, so there is no stored entry to count or read. */
export function sqliteJournal(id: string, read: Run, write: Run, chunks: SqlChunks, fresh: boolean): Journal {
  const n = fresh ? 0 : Number(read('SELECT COALESCE(MAX(n), 0) AS n FROM es_journal WHERE session_id = ?', id)[0]?.n ?? 0)
  return new SqliteJournal(id, read, write, chunks, fresh, n)
}

/**
 * A class, not an object of closures: its methods are shared by every session's journal (a
 * generator function made per session also made a prototype object per session, 0.3 KiB of an
 * idle session's 4).
 */
class SqliteJournal implements Journal {
  #id: string
  #read: Run
  #write: Run
  #chunks: SqlChunks
  #fresh: boolean
  #n: number

  constructor(id: string, read: Run, write: Run, chunks: SqlChunks, fresh: boolean, n: number) {
    this.#id = id
    this.#read = read
    this.#write = write
    this.#chunks = chunks
    this.#fresh = fresh
    this.#n = n
  }

  append(entry: JournalEntry): void {
    this.#n += 1
    const text = this.#chunks.put(this.#id, `j:${this.#n}`, JSON.stringify(entry))
    this.#write('INSERT INTO es_journal (session_id, n, entry) VALUES (?, ?, ?)', this.#id, this.#n, text)
  }

  // A page at a time, so each slice of a replay parses only the entries it feeds.
  *entries(): Generator<JournalEntry> {
    if (this.#fresh && this.#n === 0) return
    let after = 0
    for (;;) {
      const rows = this.#read(
        'SELECT n, entry FROM es_journal WHERE session_id = ? AND n > ? ORDER BY n LIMIT ?',
        this.#id,
        after,
        JOURNAL_PAGE_ROWS,
      )
      for (const row of rows) {
        after = Number(row.n)
        yield JSON.parse(this.#chunks.get(this.#id, `j:${row.n}`, String(row.entry))) as JournalEntry
      }
      if (rows.length < JOURNAL_PAGE_ROWS) return
    }
  }
}

/**
 * Text too long for one SQLite value, split over rows. A Durable Object's SQLite refuses any string
 * or row over 2 MB (SQLITE_TOOBIG), and a session's case result, a journaled event or a spec can be
 * longer; node:sqlite allows 1 GB, but the same store runs on both, so both split. A text up to
 * CHUNK_CHARS is stored in its own column as before; a longer one is stored as a marker there and
 * its parts in `es_chunks`, each at most CHUNK_CHARS UTF-16 units (at most 3 bytes each in UTF-8).
 */

/** UTF-16 code units per stored part: at most 768 KiB of UTF-8, well under the 2 MB value limit. */
export const CHUNK_CHARS = 256 * 1024
/** What a split text's own column holds: no JSON text starts with a NUL character. */
const MARK = '\u0000parts:'

export const CHUNKS_SCHEMA =
  'CREATE TABLE IF NOT EXISTS es_chunks (session_id TEXT NOT NULL, slot TEXT NOT NULL, part INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (session_id, slot, part))'

/** One statement with positional parameters, as the SQL port (sql.ts) runs it. */
type Run = (statement: string, ...params: (string | number | null)[]) => Record<string, unknown>[]

export type SqlChunks = {
  /** What to store in the text's own column; writes the parts first when the text is long. */
  put(sessionId: string, slot: string, text: string): string
  /** The whole text back from what its column holds. */
  get(sessionId: string, slot: string, stored: string): string
  /** Every part of one session (it is being removed). */
  drop(sessionId: string): void
}

/**
 * @example
 * const chunks = sqlChunks(read, write)
 * write('INSERT INTO es_results (…, data) VALUES (…, ?)', chunks.put(id, `r:${seq}`, JSON.stringify(data)))
 */
export function sqlChunks(read: Run, write: Run): SqlChunks {
  return {
    put(sessionId, slot, text) {
      if (text.length <= CHUNK_CHARS) return text
      // A slot written again (a retried insert) must not keep parts of the longer text before it.
      read('DELETE FROM es_chunks WHERE session_id = ? AND slot = ?', sessionId, slot)
      let part = 0
      let at = 0
      while (at < text.length) {
        let end = Math.min(text.length, at + CHUNK_CHARS)
        // Never split a surrogate pair: each half alone is not valid UTF-16 and SQLite would mangle it.
        if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1
        write('INSERT INTO es_chunks (session_id, slot, part, text) VALUES (?, ?, ?, ?)', sessionId, slot, part, text.slice(at, end))
        part += 1
        at = end
      }
      return `${MARK}${part}`
    },
    get(sessionId, slot, stored) {
      if (!stored.startsWith(MARK)) return stored
      const rows = read('SELECT text FROM es_chunks WHERE session_id = ? AND slot = ? ORDER BY part', sessionId, slot)
      const expected = Number(stored.slice(MARK.length))
      if (rows.length !== expected) {
        throw new Error(`stored text '${slot}' of session '${sessionId}' has ${rows.length} of its ${expected} parts`)
      }
      return rows.map((r) => String(r.text)).join('')
    },
    drop: (sessionId) => void read('DELETE FROM es_chunks WHERE session_id = ?', sessionId),
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

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
  /**
   * The whole text's UTF-8 bytes from its column's bytes (`CAST(column AS BLOB)`): no string is
   * made. Each part holds whole characters, so the parts' bytes joined are the text's.
   */
  getBytes(sessionId: string, slot: string, stored: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer>
  /** Every part of one session (it is being removed). */
  drop(sessionId: string): void
}

/**
 * @example
 * const chunks = sqlChunks(read, write)
 * write('INSERT INTO es_results (…, data) VALUES (…, ?)', chunks.put(id, `r:${seq}`, JSON.stringify(data)))
 */
export function sqlChunks(read: Run, write: Run): SqlChunks {
  /** A split text's parts in order, each as `column` selects it; all `count` of them, or an error naming the slot. */
  const parts = (sessionId: string, slot: string, count: number, column: string): unknown[] => {
    const rows = read(`SELECT ${column} AS value FROM es_chunks WHERE session_id = ? AND slot = ? ORDER BY part`, sessionId, slot)
    if (rows.length !== count) throw new Error(`stored text '${slot}' of session '${sessionId}' has ${rows.length} of its ${count} parts`)
    return rows.map((r) => r.value)
  }
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
      return parts(sessionId, slot, Number(stored.slice(MARK.length)), 'text').map(String).join('')
    },
    getBytes(sessionId, slot, stored) {
      if (!startsWithMark(stored)) return stored
      const count = Number(utf8Decoder.decode(stored.subarray(MARK_BYTES.byteLength)))
      const bytes = parts(sessionId, slot, count, 'CAST(text AS BLOB)').map(sqlBytes)
      const joined = new Uint8Array(bytes.reduce((n, part) => n + part.byteLength, 0))
      let at = 0
      for (const part of bytes) {
        joined.set(part, at)
        at += part.byteLength
      }
      return joined
    },
    drop: (sessionId) => void read('DELETE FROM es_chunks WHERE session_id = ?', sessionId),
  }
}

const utf8Decoder = new TextDecoder()
const MARK_BYTES = new TextEncoder().encode(MARK)

function startsWithMark(stored: Uint8Array): boolean {
  if (stored.byteLength < MARK_BYTES.byteLength) return false
  for (let i = 0; i < MARK_BYTES.byteLength; i++) if (stored[i] !== MARK_BYTES[i]) return false
  return true
}

/**
 * A BLOB value as bytes: node:sqlite gives a Uint8Array, a Durable Object's SQL an ArrayBuffer.
 * @example sqlBytes(row.data) // Uint8Array
 */
export function sqlBytes(value: unknown): Uint8Array<ArrayBuffer> {
  if (value instanceof Uint8Array) return value as Uint8Array<ArrayBuffer>
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  throw new Error(`expected a BLOB from SQLite, got ${value === null ? 'null' : typeof value}`)
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

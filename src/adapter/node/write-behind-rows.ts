/**
 * How the write-behind writer's statements cross to its thread (write-behind-sql.ts to
 * write-behind-worker.ts): each distinct statement text gets a number on the main thread, and its
 * text crosses once, before its first row. A batch is one flat array, each row
 * `[number, count, ...params]`, preceded by `text` when the writer has not seen that statement
 * yet. A structured clone costs per object and per character: a flat array of primitives clones
 * and reads back in a fraction of the time of an array per row carrying its SQL text each time.
 */
import { CONTROL, READ, SAVEPOINT_CONTROL, type SqlValue } from '../../session/sql.ts'

export type EncodedRows = (string | number | null)[]

/**
 * Reads (READ without RETURNING) run on the main thread's connection; callers' own transaction and
 * savepoint control is dropped: the writer's transaction already groups them.
 */
const RETURNING = /\bRETURNING\b/i

/** `read`: on the main thread; `call`: on the writer, rows awaited; `write`: queued; `control`: dropped. */
export type StatementKind = 'read' | 'call' | 'write' | 'control'
export type Statement = { readonly text: string; readonly kind: StatementKind; readonly n: number; sent: boolean }

/**
 * Each distinct statement text, classified and numbered once.
 * @example
 * const statements = statementNumbers()
 * const s = statements.of('INSERT INTO t (n) VALUES (?)') // { kind: 'write', n: 0, sent: false, ... }
 */
export function statementNumbers(): { of(text: string): Statement; readonly size: number } {
  const known = new Map<string, Statement>()
  return {
    of(text) {
      let s = known.get(text)
      if (s === undefined) {
        const returning = RETURNING.test(text)
        const control = CONTROL.test(text) || SAVEPOINT_CONTROL.test(text)
        const kind: StatementKind = control ? 'control' : READ.test(text) && !returning ? 'read' : returning ? 'call' : 'write'
        known.set(text, s = { text, kind, n: known.size, sent: false })
      }
      return s
    },
    get size() {
      return known.size
    },
  }
}

/** Appends one row to `rows`, the statement's text first if it has not crossed yet. */
export function pushRow(rows: EncodedRows, statement: Statement, params: readonly SqlValue[]): void {
  if (!statement.sent) {
    rows.push(statement.text)
    statement.sent = true
  }
  rows.push(statement.n, params.length)
  for (let i = 0; i < params.length; i++) rows.push(params[i]!)
}

/**
 * The writer's side: records each new statement's text in `texts` (by number) and calls `each`
 * with every row's statement number and params, in order.
 */
export function readRows(rows: EncodedRows, texts: string[], each: (n: number, params: SqlValue[]) => void): void {
  for (let i = 0; i < rows.length;) {
    const head = rows[i]
    if (typeof head === 'string') {
      texts[rows[i + 1] as number] = head
      i += 1
    }
    const n = rows[i] as number
    const count = rows[i + 1] as number
    const params = rows.slice(i + 2, i + 2 + count)
    i += 2 + count
    each(n, params)
  }
}

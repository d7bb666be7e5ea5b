/**
 * The tiny SQL interface the SQLite session store and judge cache are written against, so the same
 * code runs over a Durable Object's `ctx.storage.sql` and over `node:sqlite`'s DatabaseSync (Node
 * and Deno). Both adapters are structural: nothing here imports a runtime module.
 */
import { nextTurn } from '../ingest/turn-slicer.ts'

export type SqlValue = string | number | null
export type SqlRow = Record<string, unknown>

/** Runs one statement with positional `?` parameters and returns its rows (none for writes). */
export interface Sql {
  query(statement: string, ...params: SqlValue[]): SqlRow[]
  /**
   * A read that sees only what is committed, without waiting for queued writes (Node's writer
   * thread); absent where every read sees every write at once.
   */
  readCommitted?(statement: string, ...params: SqlValue[]): SqlRow[]
  /** Resolves once every write queued so far is committed; absent where writes commit as they run. */
  durable?(): Promise<unknown>
  /**
   * Runs one write and says what it changed, with no rows built: node:sqlite spends about a third
   * of a small INSERT's time on a RETURNING clause (bench/results-index.bench.ts). Absent where only
   * `query` is offered; callers then use RETURNING.
   */
  run?(statement: string, ...params: SqlValue[]): SqlChange
}

/** What one write changed: rows written, and the rowid of the last row it inserted (0 if none). */
export type SqlChange = { changes: number; lastRowId: number }

/** The part of `ctx.storage.sql` (Workers) used here. */
export type DurableSqlLike = { exec(query: string, ...bindings: unknown[]): { toArray(): SqlRow[] } }

/** The part of `node:sqlite`'s DatabaseSync used here. */
export type DatabaseSyncLike = {
  prepare(statement: string): {
    all(...params: SqlValue[]): unknown[]
    run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint }
  }
}

/**
 * @example
 * const sql = sqlFromDurable(ctx.storage.sql)
 * sql.query('SELECT 1 AS one') // [{ one: 1 }]
 */
export function sqlFromDurable(storage: DurableSqlLike): Sql {
  return { query: (statement, ...params) => storage.exec(statement, ...params).toArray() }
}

/** node:sqlite's DatabaseSync as grouped-commit needs it (`exec` runs BEGIN and COMMIT). */
export type DatabaseSyncExec = DatabaseSyncLike & { exec(statement: string): void }

/**
 * When grouped writes commit (`sqlFromDatabaseSync`'s `groupCommit`): `true`, in the microtask
 * after the group's first write; `'turn'`, at the end of the event loop's turn (`setImmediate`).
 */
export type GroupCommit = boolean | 'turn'

/**
 * Prepared statements are cached by text: the store uses a fixed, small set of statements.
 *
 * With `groupCommit`, writes are grouped: the first write opens a transaction and a microtask
 * commits it, so the writes made together (a whole uploaded body, its results, its journal
 * entries) cost one commit instead of one each (node:sqlite measured here: 48 µs per
 * autocommitted insert, 6 µs inside a transaction). Nothing is acknowledged later than before: the
 * commit is queued at the first write, ahead of anything the writer does next, so it runs before
 * the response that follows those writes is produced. An explicit BEGIN commits the group first
 * and then runs as asked; a SAVEPOINT runs inside the group (`sqlTransaction`).
 *
 * With `groupCommit: 'turn'` the group commits once the event loop's turn is over, so every
 * request a turn served shares one commit (a microtask checkpoint comes after every callback: a
 * run of bench/load.ts --db memory made 21,495 commits, against 272 a turn). A response written
 * during the turn would leave before its writes commit: a host that acknowledges writes answers
 * after `committed()` (the app's `writesDurable`).
 * @example
 * const sql = sqlFromDatabaseSync(new DatabaseSync('.evalstream/evalstream.db'), { groupCommit: true })
 */
export function sqlFromDatabaseSync(
  db: DatabaseSyncLike,
  options: { groupCommit?: GroupCommit } = {},
): Sql & { flush(): void; committed(): Promise<void> } {
  const prepared = new Map<string, ReturnType<DatabaseSyncLike['prepare']>>()
  const grouping = (options.groupCommit === true || options.groupCommit === 'turn') && 'exec' in db
  const commitLater = options.groupCommit === 'turn' ? nextTurn : queueMicrotask
  let grouped = false
  let explicit = false
  /** Whoever waits for the open group's commit (`committed`). */
  let waiting: { promise: Promise<void>; resolve: () => void } | undefined
  const flush = () => {
    if (!grouped) return
    grouped = false
    try {
      ;(db as DatabaseSyncExec).exec('COMMIT')
    } catch (e) {
      // A COMMIT that fails (disk full) leaves SQLite to roll back; say so, the host goes on.
      console.error(`evalstream: SQLite commit failed: ${e instanceof Error ? e.message : String(e)}`)
    } finally {
      waiting?.resolve()
      waiting = undefined
    }
  }
  const statementFor = (statement: string) => {
    if (grouping) {
      const control = CONTROL.exec(statement)?.[1]?.toUpperCase()
      if (control === 'BEGIN') {
        flush()
        explicit = true
      } else if (control) {
        explicit = false
        grouped = false
        // A caller's COMMIT or ROLLBACK ends the group's transaction too (it runs right after this,
        // before anyone resumed from `committed` does).
        waiting?.resolve()
        waiting = undefined
      } else if (!grouped && !explicit && !READ.test(statement)) {
        ;(db as DatabaseSyncExec).exec('BEGIN')
        grouped = true
        commitLater(flush)
      }
    }
    let prepared1 = prepared.get(statement)
    if (!prepared1) {
      prepared1 = db.prepare(statement)
      prepared.set(statement, prepared1)
    }
    return prepared1
  }
  return {
    query: (statement, ...params) => statementFor(statement).all(...params) as SqlRow[],
    run(statement, ...params) {
      const { changes, lastInsertRowid } = statementFor(statement).run(...params)
      return { changes: Number(changes), lastRowId: Number(lastInsertRowid) }
    },
    flush,
    // Not named `durable`: on one connection a read sees its own writes, so no reader need wait
    // for this (sqlite/journal.ts waits for a `durable` before reading).
    committed: () => {
      if (!grouped) return Promise.resolve()
      if (!waiting) {
        let resolve = () => {}
        const promise = new Promise<void>((r) => (resolve = r))
        waiting = { promise, resolve }
      }
      return waiting.promise
    },
  }
}

/**
 * A caller's own transaction control: BEGIN, COMMIT, END or ROLLBACK (the word is group 1); not
 * ROLLBACK TO a savepoint, which leaves the transaction open.
 */
export const CONTROL = /^\s*(BEGIN|COMMIT|END|ROLLBACK)\b(?!\s+(?:TRANSACTION\s+)?TO\b)/i
/** A savepoint's own control: SAVEPOINT, RELEASE, ROLLBACK TO. */
export const SAVEPOINT_CONTROL = /^\s*(SAVEPOINT|RELEASE|ROLLBACK\s+(?:TRANSACTION\s+)?TO)\b/i
/** A statement that only reads (unless it also says RETURNING). */
export const READ = /^\s*(SELECT|PRAGMA|WITH)\b/i

/** One statement with its parameters through a store's SQL, as the session stores call it. */
export type SqlRun = (statement: string, ...params: (string | number | null)[]) => SqlRow[]

/**
 * The tiny SQL interface the SQLite session store and judge cache are written against, so the same
 * code runs over a Durable Object's `ctx.storage.sql` and over `node:sqlite`'s DatabaseSync (Node
 * and Deno). Both adapters are structural: nothing here imports a runtime module.
 */

export type SqlValue = string | number | null
export type SqlRow = Record<string, unknown>

/** Runs one statement with positional `?` parameters and returns its rows (none for writes). */
export interface Sql {
  query(statement: string, ...params: SqlValue[]): SqlRow[]
}

/** The part of `ctx.storage.sql` (Workers) used here. */
export type DurableSqlLike = { exec(query: string, ...bindings: unknown[]): { toArray(): SqlRow[] } }

/** The part of `node:sqlite`'s DatabaseSync used here. */
export type DatabaseSyncLike = { prepare(statement: string): { all(...params: SqlValue[]): unknown[] } }

/**
 * @example
 * const sql = sqlFromDurable(ctx.storage.sql)
 * sql.query('SELECT 1 AS one') // [{ one: 1 }]
 */
export function sqlFromDurable(storage: DurableSqlLike): Sql {
  return { query: (statement, ...params) => storage.exec(statement, ...params).toArray() }
}

/**
 * Prepared statements are cached by text: the store uses a fixed, small set of statements.
 * @example
 * const sql = sqlFromDatabaseSync(new DatabaseSync('.evalstream/evalstream.db'))
 */
export function sqlFromDatabaseSync(db: DatabaseSyncLike): Sql {
  const prepared = new Map<string, ReturnType<DatabaseSyncLike['prepare']>>()
  return {
    query(statement, ...params) {
      let prepared1 = prepared.get(statement)
      if (!prepared1) {
        prepared1 = db.prepare(statement)
        prepared.set(statement, prepared1)
      }
      return prepared1.all(...params) as SqlRow[]
    },
  }
}

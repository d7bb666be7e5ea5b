/**
 * The eval set store (eval-set-store.ts) in SQLite over the tiny `Sql` interface: node:sqlite
 * beside the sessions on Node and Deno (EVALSTREAM_DB), and a Durable Object's `ctx.storage.sql`
 * on Workers (one object per tenant and app). Tables are created on the first write, so reading
 * an empty store leaves no storage behind. Table names start with `ev_`, not `es_`, so the
 * session object's "no `es_` table left, delete all storage" rule never touches them.
 */
import { DEFAULT_EVAL_STORE_LIMITS, type EvalScope, type EvalSetStore, type EvalStoreLimits } from './eval-set-store.ts'
import type { Sql, SqlRow, SqlValue } from '../../session/sql.ts'

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS ev_sets (tenant TEXT NOT NULL, app TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, updated_ms INTEGER NOT NULL, PRIMARY KEY (tenant, app, id))',
  'CREATE TABLE IF NOT EXISTS ev_results (tenant TEXT NOT NULL, app TEXT NOT NULL, id TEXT NOT NULL, eval_set_id TEXT NOT NULL, body TEXT NOT NULL, created_ms INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tenant, app, id))',
  'CREATE INDEX IF NOT EXISTS ev_results_order ON ev_results (tenant, app, n)',
]

/**
 * @example
 * const store = sqliteEvalSetStore(sqlFromDatabaseSync(db))
 * store.listSets({ app: 'weather_agent' }) // []
 */
export function sqliteEvalSetStore(sql: Sql, limits: EvalStoreLimits = DEFAULT_EVAL_STORE_LIMITS): EvalSetStore {
  let ready: boolean | undefined
  const exists =
    (): boolean => (ready ??= sql.query("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ev_sets'").length > 0)
  const write = (statement: string, ...params: SqlValue[]): SqlRow[] => {
    if (!exists()) {
      for (const s of SCHEMA) sql.query(s)
      ready = true
    }
    return sql.query(statement, ...params)
  }
  const read = (statement: string, ...params: SqlValue[]): SqlRow[] => (exists() ? sql.query(statement, ...params) : [])
  const key = (scope: EvalScope): [string, string] => [scope.tenant ?? '', scope.app]
  const count = (table: 'ev_sets' | 'ev_results', scope: EvalScope): number =>
    Number(read(`SELECT COUNT(*) AS n FROM ${table} WHERE tenant = ? AND app = ?`, ...key(scope))[0]?.n ?? 0)

  return {
    listSets: (scope) => read('SELECT id FROM ev_sets WHERE tenant = ? AND app = ? ORDER BY id', ...key(scope)).map((r) => String(r.id)),
    getSet(scope, id) {
      const row = read('SELECT body FROM ev_sets WHERE tenant = ? AND app = ? AND id = ?', ...key(scope), id)[0]
      return row ? String(row.body) : undefined
    },
    createSet(scope, id, json, nowMs) {
      if (read('SELECT 1 AS x FROM ev_sets WHERE tenant = ? AND app = ? AND id = ?', ...key(scope), id).length > 0) return 'exists'
      if (count('ev_sets', scope) >= limits.maxSets) return 'full'
      write('INSERT INTO ev_sets (tenant, app, id, body, updated_ms) VALUES (?, ?, ?, ?, ?)', ...key(scope), id, json, nowMs)
      return 'created'
    },
    replaceSet(scope, id, json, nowMs) {
      const rows = read(
        'UPDATE ev_sets SET body = ?, updated_ms = ? WHERE tenant = ? AND app = ? AND id = ? RETURNING id',
        json,
        nowMs,
        ...key(scope),
        id,
      )
      return rows.length > 0
    },
    deleteSet: (scope, id) =>
      read('DELETE FROM ev_sets WHERE tenant = ? AND app = ? AND id = ? RETURNING id', ...key(scope), id).length > 0,
    listResults: (scope) =>
      read('SELECT id FROM ev_results WHERE tenant = ? AND app = ? ORDER BY n', ...key(scope)).map((r) => String(r.id)),
    getResult(scope, id) {
      const row = read('SELECT body FROM ev_results WHERE tenant = ? AND app = ? AND id = ?', ...key(scope), id)[0]
      return row ? String(row.body) : undefined
    },
    addResult(scope, result) {
      // n orders results by arrival even when two runs finish within the same millisecond.
      const last = Number(read('SELECT COALESCE(MAX(n), 0) AS n FROM ev_results WHERE tenant = ? AND app = ?', ...key(scope))[0]?.n ?? 0)
      write(
        'INSERT OR REPLACE INTO ev_results (tenant, app, id, eval_set_id, body, created_ms, n) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ...key(scope),
        result.id,
        result.evalSetId,
        result.json,
        result.createdMs,
        last + 1,
      )
      const excess = count('ev_results', scope) - limits.maxResults
      if (excess > 0) {
        read(
          'DELETE FROM ev_results WHERE tenant = ? AND app = ? AND id IN (SELECT id FROM ev_results WHERE tenant = ? AND app = ? ORDER BY n LIMIT ?)',
          ...key(scope),
          ...key(scope),
          excess,
        )
      }
    },
  }
}

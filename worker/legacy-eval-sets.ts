/**
 * The carry-over of eval sets kept before EvalSets existed (eval-sets-object.ts): a SESSIONS object
 * of an app's name answers LEGACY_EXPORT_PATH with the eval set tables it holds, schema and rows.
 * The router never forwards that path to an object: only another object asks.
 */
import type { DurableObjectState } from './types.ts'

/** Where a SESSIONS object answers with the eval set tables it holds (from before EvalSets). */
export const LEGACY_EXPORT_PATH = '/__eval-sets/export'
/** The eval set tables of a storage, by name (src/http/dev-eval/sqlite-eval-set-store.ts). */
export const EVAL_TABLES = "type = 'table' AND name LIKE 'ev\\_%' ESCAPE '\\'"

/** One table's schema and rows, as a SESSIONS object exports them. */
export type TableExport = { name: string; sql: string; rows: Array<Record<string, unknown>> }

/** The `ev_` tables of a storage, schema and rows (a SESSIONS object's side of the carry-over). */
export function exportEvalTables(sql: DurableObjectState['storage']['sql']): TableExport[] {
  return sql.exec(`SELECT name, sql FROM sqlite_master WHERE ${EVAL_TABLES}`).toArray().map((t) => ({
    name: String(t.name),
    sql: String(t.sql),
    rows: sql.exec(`SELECT * FROM "${String(t.name)}"`).toArray() as Array<Record<string, unknown>>,
  }))
}

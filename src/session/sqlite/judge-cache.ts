/**
 * Judge answers kept in SQLite by stable request id, shared by Node/Deno (node:sqlite, EVALSTREAM_DB)
 * and the Durable Object (ctx.storage.sql). A restarted host replays each session's journal through
 * a fresh engine; every judge request that had already been answered comes from here, so a restart
 * never sends an answered judge call again. Like the session records, the table is created on the
 * first write, so a Durable Object that never judged keeps no storage.
 */
import type { JudgeAnswer } from '../../core/criterion.ts'
import type { JudgeCache } from '../../judge/cache.ts'
import type { Sql } from '../sql.ts'

/** Answers kept at most (a few KB each); the oldest go first. Bounds the file, not correctness. */
export const MAX_JUDGE_CACHE_ROWS = 100_000
/** The cap is enforced once per this many writes, not on every one. */
const PRUNE_EVERY_PUTS = 1_000

export type SqliteJudgeCache = JudgeCache & { forgetSchema(): void }

/**
 * @example
 * const cache = sqliteJudgeCache(sqlFromDurable(ctx.storage.sql))
 */
export function sqliteJudgeCache(sql: Sql, maxRows = MAX_JUDGE_CACHE_ROWS): SqliteJudgeCache {
  let ready: boolean | undefined
  let puts = 0
  const exists =
    () => (ready ??= sql.query("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'es_judge_answers'").length > 0)
  return {
    get(id) {
      if (!exists()) return undefined
      const row = sql.query('SELECT answer FROM es_judge_answers WHERE id = ?', id)[0]
      return row ? (JSON.parse(String(row.answer)) as JudgeAnswer) : undefined
    },
    put(id, answer) {
      if (!exists()) {
        sql.query('CREATE TABLE IF NOT EXISTS es_judge_answers (id TEXT PRIMARY KEY, answer TEXT NOT NULL)')
        ready = true
      }
      // REPLACE gives the row a new rowid, so rowid order is write order.
      sql.query('INSERT OR REPLACE INTO es_judge_answers (id, answer) VALUES (?, ?)', id, JSON.stringify(answer))
      if (++puts % PRUNE_EVERY_PUTS === 0) {
        sql.query('DELETE FROM es_judge_answers WHERE rowid <= (SELECT MAX(rowid) FROM es_judge_answers) - ?', maxRows)
      }
    },
    forgetSchema() {
      ready = undefined
    },
  }
}

/**
 * Judge answers kept in the Durable Object's SQLite, by stable request id. After an eviction the
 * session replays its journal through a fresh engine; every judge request it had already been
 * answered comes from here, so a restart never pays for a judge call twice.
 */
import type { JudgeAnswer } from '../src/core/criterion.ts'
import type { JudgeCache } from '../src/judge/cache.ts'
import type { SqlStorage } from './types.ts'

/** @example const cache = sqliteJudgeCache(ctx.storage.sql) */
export function sqliteJudgeCache(sql: SqlStorage): JudgeCache {
  sql.exec('CREATE TABLE IF NOT EXISTS judge_answers (id TEXT PRIMARY KEY, answer TEXT NOT NULL)')
  return {
    get(id) {
      const row = sql.exec('SELECT answer FROM judge_answers WHERE id = ?', id).toArray()[0]
      return row ? (JSON.parse(String(row.answer)) as JudgeAnswer) : undefined
    },
    put(id, answer) {
      sql.exec('INSERT OR REPLACE INTO judge_answers (id, answer) VALUES (?, ?)', id, JSON.stringify(answer))
    },
  }
}

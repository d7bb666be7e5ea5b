/**
 * The Durable Object's judge cache: the shared SQLite judge cache (src/session/sqlite/judge-cache.ts)
 * over this object's `ctx.storage.sql`.
 */
import { type SqliteJudgeCache, sqliteJudgeCache } from '../src/session/sqlite/judge-cache.ts'
import { sqlFromDurable } from '../src/session/sql.ts'
import type { SqlStorage } from './types.ts'

/** @example const cache = durableJudgeCache(ctx.storage.sql) */
export function durableJudgeCache(sql: SqlStorage): SqliteJudgeCache {
  return sqliteJudgeCache(sqlFromDurable(sql))
}

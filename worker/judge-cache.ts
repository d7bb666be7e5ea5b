/**
 * The Durable Object's judge cache: the shared SQLite judge cache (src/host/sqlite-judge-cache.ts)
 * over this object's `ctx.storage.sql`.
 */
import { sqliteJudgeCache, type SqliteJudgeCache } from '../src/host/sqlite-judge-cache.ts'
import { sqlFromDurable } from '../src/host/sql.ts'
import type { SqlStorage } from './types.ts'

/** @example const cache = durableJudgeCache(ctx.storage.sql) */
export function durableJudgeCache(sql: SqlStorage): SqliteJudgeCache {
  return sqliteJudgeCache(sqlFromDurable(sql))
}

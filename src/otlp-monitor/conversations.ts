/**
 * When each monitored conversation last got a trace, kept where it survives a restart: a
 * conversation open when the process stopped (or a Durable Object was evicted) is still ended by
 * its idle time afterwards. In SQLite (the sessions' database on Node and Deno; on Workers each
 * conversation's own session object, worker/conversation-idle.ts), created on the first write; in
 * memory when there is no database.
 */
import type { Sql } from '../session/sql.ts'

export type ConversationTimes = {
  load(): Array<[sessionId: string, lastMs: number]>
  touch(sessionId: string, atMs: number): void
  remove(sessionId: string): void
}

export function memoryConversationTimes(): ConversationTimes {
  return { load: () => [], touch() {}, remove() {} }
}

/** @example const times = sqliteConversationTimes(sqlFromDatabaseSync(db)) */
export function sqliteConversationTimes(sql: Sql): ConversationTimes {
  let ready: boolean | undefined
  const exists =
    () => (ready ??= sql.query("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'otlp_conversations'").length > 0)
  return {
    load: () => (exists() ? sql.query('SELECT id, at FROM otlp_conversations').map((r) => [String(r.id), Number(r.at)]) : []),
    touch(sessionId, atMs) {
      if (!exists()) {
        sql.query('CREATE TABLE IF NOT EXISTS otlp_conversations (id TEXT PRIMARY KEY, at INTEGER NOT NULL)')
        ready = true
      }
      sql.query('INSERT OR REPLACE INTO otlp_conversations (id, at) VALUES (?, ?)', sessionId, atMs)
    },
    remove(sessionId) {
      if (exists()) sql.query('DELETE FROM otlp_conversations WHERE id = ?', sessionId)
    },
  }
}

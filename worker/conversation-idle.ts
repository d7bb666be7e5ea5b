/**
 * A monitored conversation's idle end, kept by its own session object: the object that takes
 * every trace of the conversation (whichever OTLP shard assembled it) notes when it last took one,
 * in its SQLite (the same `otlp_conversations` table Node keeps, src/otlp-monitor/conversations.ts),
 * and its alarm ends the session once EVALSTREAM_OTLP_CONVERSATION_IDLE_MS passed without one. No
 * object of the tenant holds every conversation's timer, and an evicted object still ends its
 * conversation on time (the alarm and the row survive it).
 */
import { type ConversationTimes, sqliteConversationTimes } from '../src/otlp-monitor/conversations.ts'
import { sqlFromDurable } from '../src/session/sql.ts'
import type { SqlStorage } from './types.ts'

export type ConversationIdle = {
  /** The conversation took a trace (or a piece of one) now. */
  taken(sessionId: string, nowMs: number): void
  /** When the next conversation of this object falls idle, if any. */
  due(): number | undefined
  /** Ends (through `end`) every conversation idle at `nowMs`, and forgets it. */
  endIdle(nowMs: number, end: (sessionId: string) => Promise<void>): Promise<void>
  /** The object's storage was deleted: nothing is known, no table exists. */
  forget(): void
}

/** @example const idle = conversationIdle(ctx.storage.sql, 30 * 60_000) */
export function conversationIdle(sql: SqlStorage, idleMs: number): ConversationIdle {
  let times: ConversationTimes = sqliteConversationTimes(sqlFromDurable(sql))
  // Read once per instance: every change below goes through this copy too.
  let last: Map<string, number> | undefined
  const rows = () => (last ??= new Map(times.load()))
  return {
    taken(sessionId, nowMs) {
      rows().set(sessionId, nowMs)
      times.touch(sessionId, nowMs)
    },
    due() {
      let next: number | undefined
      for (const at of rows().values()) next = Math.min(next ?? Infinity, at + idleMs)
      return next
    },
    async endIdle(nowMs, end) {
      for (const [id, at] of [...rows()]) {
        if (nowMs - at < idleMs) continue
        rows().delete(id)
        times.remove(id)
        await end(id)
      }
    },
    forget() {
      last = undefined
      times = sqliteConversationTimes(sqlFromDurable(sql))
    },
  }
}

/**
 * The session store inside a Durable Object: the shared SQLite store (src/session/store.ts)
 * over this object's `ctx.storage.sql`, holding its one session: spec, journal of engine inputs and
 * result log. After an eviction the object rebuilds the session by replaying the journal; results
 * already in the log are kept, not re-emitted, so subscribers resume by Last-Event-ID.
 *
 * Storage is freed by the object's alarm: it is set to when the session's idle TTL or retention
 * runs out; then the session goes (a 410 notice is kept for EVALSTREAM_GONE_NOTICE_MS) and once
 * nothing is left the object deletes all its storage. The max-sessions cap does not apply here:
 * every session is its own object.
 */
import { createSessionStore, type SessionLimits, type SessionStore } from '../src/session/store.ts'
import { sqliteSessionRecords } from '../src/session/sqlite/records.ts'
import { sqlFromDurable } from '../src/session/sql.ts'
import type { ResultFeed } from '../src/session/result-feed.ts'
import type { SqliteJudgeCache } from '../src/session/sqlite/judge-cache.ts'
import type { DurableObjectStorage } from './types.ts'
import { EVAL_TABLES } from './legacy-eval-sets.ts'

/** Something else in the object that wants its alarm (a conversation's idle end). */
export type AlarmNeed = {
  /** When it must wake next, if ever. */
  due(): number | undefined
  /** The object's storage was deleted. */
  forget(): void
}

export type DurableSessions = {
  store: SessionStore
  /** After every request and alarm: move the alarm to the next expiry, or delete all when empty. */
  settle(): Promise<void>
  /** The alarm fired: evict what expired, then settle. */
  alarm(): Promise<void>
}

/**
 * @example
 * const sessions = durableSessions(ctx.storage, limits, { judgeCache })
 * createApp({ ...deps, store: sessions.store })
 */
export function durableSessions(
  storage: DurableObjectStorage,
  limits: SessionLimits,
  options: { judgeCache?: SqliteJudgeCache; feed?: ResultFeed; also?: AlarmNeed } = {},
): DurableSessions {
  const { judgeCache, feed, also } = options
  const records = sqliteSessionRecords(sqlFromDurable(storage.sql))
  const store = createSessionStore(records, { limits: { ...limits, maxSessions: Number.MAX_SAFE_INTEGER }, sweeper: 'manual', feed })
  // What the alarm is set to, as far as this instance knows (undefined: not read yet).
  let scheduled: number | null | undefined

  const settle = async () => {
    if (records.isEmpty()) {
      // An app's eval sets kept here before they had objects of their own (eval-sets-object.ts)
      // stay: they have no TTL, and their object copies them from here on its first request.
      if (!hasTables(storage) || holdsEvalSets(storage)) return
      await storage.deleteAll()
      records.forgetSchema()
      judgeCache?.forgetSchema()
      also?.forget()
      scheduled = null
      return
    }
    const own = records.nextDue(limits)
    const other = also?.due()
    const next = own === undefined ? other : other === undefined ? own : Math.min(own, other)
    if (next === undefined) return
    scheduled ??= await storage.getAlarm()
    if (scheduled !== next) {
      await storage.setAlarm(next)
      scheduled = next
    }
  }
  return {
    store,
    settle,
    async alarm() {
      // The alarm has fired and is no longer set.
      scheduled = null
      store.sweep()
      await settle()
    },
  }
}

/** Any table of ours (the session tables, the judge cache) left in this object's SQLite. */
function hasTables(storage: DurableObjectStorage): boolean {
  return storage.sql.exec("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name LIKE 'es\\_%' ESCAPE '\\'").toArray().length > 0
}

/** The eval set tables (src/http/dev-eval/sqlite-eval-set-store.ts) an object of this class kept before EvalSets. */
function holdsEvalSets(storage: DurableObjectStorage): boolean {
  return storage.sql.exec(`SELECT 1 AS x FROM sqlite_master WHERE ${EVAL_TABLES}`).toArray().length > 0
}

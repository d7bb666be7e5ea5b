/**
 * The session store inside a Durable Object: one session, persisted in the object's SQLite: its
 * spec, the journal of engine inputs, and the result log. After an eviction the object rebuilds the
 * session by replaying the journal through a fresh engine; results already in the log are kept, not
 * re-emitted, so subscribers resume by Last-Event-ID with no gap and no duplicate.
 */
import type { ResultEvent, SessionSpec } from '../src/engine/types.ts'
import { createResultLog, type ResultStorage } from '../src/host/result-log.ts'
import { HostedSession, type EngineFactory, type Journal, type JournalEntry } from '../src/host/session.ts'
import { SESSION_EXISTS, type SessionStore } from '../src/host/session-store.ts'
import type { SqlStorage } from './types.ts'

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS journal (n INTEGER PRIMARY KEY AUTOINCREMENT, entry TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS results (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL)',
]

/** @example const store = durableSessionStore(ctx.storage.sql) */
export function durableSessionStore(sql: SqlStorage): SessionStore {
  for (const statement of SCHEMA) sql.exec(statement)
  let live: HostedSession | undefined
  // One rebuild at a time: requests arriving during a replay wait for the same session.
  let opening: Promise<HostedSession | undefined> | undefined

  const storedSpec = (): SessionSpec | undefined => {
    const row = sql.exec("SELECT value FROM meta WHERE key = 'spec'").toArray()[0]
    return row ? (JSON.parse(String(row.value)) as SessionSpec) : undefined
  }
  const parts = (spec: SessionSpec, createEngine: EngineFactory) => ({
    spec,
    log: createResultLog(sqliteResults(sql)),
    journal: sqliteJournal(sql),
    createEngine,
  })

  return {
    async create(spec, createEngine) {
      if (live || opening || storedSpec()) return SESSION_EXISTS(spec.session_id)
      const opened = await HostedSession.open(parts(spec, createEngine))
      if (!opened.ok) return opened
      sql.exec("INSERT INTO meta (key, value) VALUES ('spec', ?)", JSON.stringify(spec))
      live = opened.session
      return opened
    },
    async get(id, createEngine) {
      if (live) return live.id === id ? live : undefined
      opening ??= (async () => {
        const spec = storedSpec()
        if (!spec) return undefined
        const opened = await HostedSession.open(parts(spec, createEngine))
        // The spec was accepted once; if the engine now refuses it, the session cannot be served.
        if (!opened.ok) throw new Error(`stored session '${spec.session_id}' no longer opens: ${opened.detail}`)
        live = opened.session
        return live
      })().finally(() => {
        opening = undefined
      })
      const session = await opening
      return session?.id === id ? session : undefined
    },
  }
}

function sqliteResults(sql: SqlStorage): ResultStorage {
  const toEvent = (row: Record<string, unknown>): ResultEvent => ({
    seq: Number(row.seq),
    type: row.type as ResultEvent['type'],
    key: String(row.key),
    data: JSON.parse(String(row.data)) as Record<string, unknown>,
  })
  return {
    lastSeq: () => Number(sql.exec('SELECT COALESCE(MAX(seq), 0) AS last FROM results').toArray()[0]?.last ?? 0),
    insert: (e) =>
      void sql.exec('INSERT INTO results (seq, type, key, data) VALUES (?, ?, ?, ?)', e.seq, e.type, e.key, JSON.stringify(e.data)),
    readAfter: (after) =>
      sql.exec('SELECT seq, type, key, data FROM results WHERE seq > ? ORDER BY seq', after).toArray().map(toEvent),
  }
}

function sqliteJournal(sql: SqlStorage): Journal {
  return {
    append: (entry) => void sql.exec('INSERT INTO journal (entry) VALUES (?)', JSON.stringify(entry)),
    entries: () => sql.exec('SELECT entry FROM journal ORDER BY n').toArray().map((r) => JSON.parse(String(r.entry)) as JournalEntry),
  }
}

/**
 * EVALSTREAM_DB for the Node and Deno adapters (both have `node:sqlite`): a file path keeps
 * sessions (spec, journal, results) and judge answers in SQLite, so a restarted server rebuilds
 * every open session by replay; `:memory:` keeps sessions in an in-memory SQLite database: they end
 * with the process, and their events and results are rows (compact text outside the JS heap), which
 * a session lets go of and reads back as it does from a file.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import type { JudgeCache } from '../judge/cache.ts'
import { sqliteSessionStore } from '../session/store.ts'
import type { StoreSource } from '../config/setup.ts'
import { sqliteJudgeCache } from '../session/sqlite/judge-cache.ts'
import type { EvalSetStore } from '../http/dev-eval/eval-set-store.ts'
import { sqliteEvalSetStore } from '../http/dev-eval/sqlite-eval-set-store.ts'
import { type Sql, sqlFromDatabaseSync } from '../session/sql.ts'

/** Where `npm start` keeps sessions when EVALSTREAM_DB is not set (relative to the working directory). */
export const DEFAULT_DB_PATH = '.evalstream/evalstream.db'
export const MEMORY_DB = ':memory:'

/**
 * `evalSets`: the ADK web UI's eval sets and results beside the sessions (absent: in memory).
 * `indexSql`: where the results index lives (the same file, or a database in memory).
 */
export type SessionDb = {
  store: StoreSource
  judgeCache?: JudgeCache
  evalSets?: EvalSetStore
  indexSql: Sql
  note: string
  /** Resolves once what was written so far is committed (only when writes are queued to another thread). */
  durable?: () => Promise<unknown>
  close(): unknown
}

/**
 * @example
 * const db = openSessionDb(process.env.EVALSTREAM_DB || DEFAULT_DB_PATH)
 * depsFromEnv(process.env, { store: db.store, judgeCache: db.judgeCache })
 */
/**
 * `sql`: how the file is written; the default is one connection on this thread with grouped
 * commits (Deno); the Node server passes its write-behind writer thread (node/write-behind-sql.ts).
 */
export type SessionDbOptions = { sql?: (path: string) => Sql & { close(): unknown; durable?(): Promise<unknown> } }

export function openSessionDb(path: string, options: SessionDbOptions = {}): SessionDb {
  if (path === MEMORY_DB) {
    const memory = new DatabaseSync(MEMORY_DB)
    // On this thread: nothing to make durable, so no writer thread, and one commit per turn of the
    // event loop (bench/README.md: a quarter or more of the main thread's CPU per event under load).
    const sql = sqlFromDatabaseSync(memory, { groupCommit: 'turn' })
    let closeStore = () => {}
    return {
      store: (limits, feed) => {
        const store = sqliteSessionStore(sql, { limits, feed, inMemory: true })
        closeStore = () => store.close()
        return store
      },
      indexSql: sql,
      note: 'sessions in memory (EVALSTREAM_DB=:memory:, an in-memory SQLite database; gone when the process ends)',
      close() {
        closeStore()
        sql.flush()
        memory.close()
      },
    }
  }
  mkdirSync(dirname(path), { recursive: true })
  const custom = options.sql?.(path)
  let db: DatabaseSync | undefined
  let sql: Sql & { flush?(): void }
  let durable = custom?.durable ? () => custom.durable!() : undefined
  if (custom) sql = custom
  else {
    db = new DatabaseSync(path)
    // WAL: a write is durable once its commit returns, even if the process is killed right after;
    // NORMAL skips the fsync per commit that only a power loss would need.
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000')
    // Grouped commits: one commit per turn of the event loop, not per statement or per microtask
    // (sql.ts); a request that wrote is answered once that commit is done (`durable`).
    const grouped = sqlFromDatabaseSync(db, { groupCommit: 'turn' })
    sql = grouped
    durable = () => grouped.committed()
  }
  let closeStore = () => {}
  return {
    store: (limits, feed) => {
      const store = sqliteSessionStore(sql, { limits, feed })
      closeStore = () => store.close()
      return store
    },
    judgeCache: sqliteJudgeCache(sql),
    evalSets: sqliteEvalSetStore(sql),
    indexSql: sql,
    ...(durable ? { durable } : {}),
    note: `sessions in SQLite at ${path} (EVALSTREAM_DB)${custom ? ', written by a writer thread' : ''}; a restart resumes them`,
    close() {
      closeStore()
      sql.flush?.()
      db?.close()
      return custom?.close()
    },
  }
}

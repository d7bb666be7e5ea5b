/**
 * Session records in SQLite, written against the tiny `Sql` interface so one implementation serves
 * Node and Deno (`node:sqlite`, many sessions in one file) and the Durable Object (`ctx.storage.sql`,
 * one session per object). The schema is created on the first write, not on open: a Durable Object
 * that is only asked about an unknown id keeps no storage at all.
 *
 * Each session's record (spec, touched and ended times) is kept in memory once read or written and
 * written through: the store reads it on every request (expiry), and a SELECT plus a JSON.parse of
 * the whole spec per request cost more than the request's own work. The spec object is the one the
 * live session holds, so the cache adds a few numbers per session, not a copy.
 */
import type { SessionSpec } from '../../engine/types.ts'
import type { GoneReason, SessionRecord, SessionRecords } from '../records.ts'
import type { Sql, SqlRow } from '../sql.ts'
import { CHUNKS_SCHEMA, sqlChunks } from './chunks.ts'
import { type SessionSql, sqliteJournal } from './journal.ts'
import { sqliteResults } from './results.ts'

export { JOURNAL_PAGE_ROWS } from './journal.ts'

/**
 * A tenant's sessions found without parsing every spec (its quota is checked on each create): the
 * tenant is a column of its own, since a long spec is stored in parts (chunks.ts) and is then
 * no JSON SQLite could read.
 */
const TENANT_INDEX = 'CREATE INDEX IF NOT EXISTS es_sessions_by_tenant ON es_sessions (tenant)'

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS es_sessions (id TEXT PRIMARY KEY, spec TEXT NOT NULL, touched_ms INTEGER NOT NULL, ended_ms INTEGER, tenant TEXT)',
  'CREATE INDEX IF NOT EXISTS es_sessions_open ON es_sessions (touched_ms) WHERE ended_ms IS NULL',
  'CREATE INDEX IF NOT EXISTS es_sessions_ended ON es_sessions (ended_ms) WHERE ended_ms IS NOT NULL',
  'CREATE TABLE IF NOT EXISTS es_journal (session_id TEXT NOT NULL, n INTEGER NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (session_id, n))',
  'CREATE TABLE IF NOT EXISTS es_results (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session_id, seq))',
  'CREATE TABLE IF NOT EXISTS es_gone (id TEXT PRIMARY KEY, reason TEXT NOT NULL, at_ms INTEGER NOT NULL, tenant TEXT)',
  'CREATE INDEX IF NOT EXISTS es_gone_at ON es_gone (at_ms)',
  // Texts longer than one SQLite value may be (src/session/sqlite/chunks.ts).
  CHUNKS_SCHEMA,
]

export type SqliteSessionRecords = SessionRecords & {
  /** The storage was wiped from outside (a Durable Object's deleteAll): create the schema again on next write. */
  forgetSchema(): void
}

/**
 * @example
 * const records = sqliteSessionRecords(sqlFromDatabaseSync(db))
 */
export function sqliteSessionRecords(sql: Sql, options: { inMemory?: boolean } = {}): SqliteSessionRecords {
  let ready: boolean | undefined
  // The schema is (re)applied on this instance's first write: a file from before a table was added gets it.
  let migrated = false
  /** Reads on a storage without our tables answer "nothing" instead of creating them. */
  const exists =
    (): boolean => (ready ??= sql.query("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'es_sessions'").length > 0)
  // A database written before the tenant index existed gets it on its first write.
  let indexed = false
  const write = (statement: string, ...params: (string | number | null)[]): SqlRow[] => {
    if (!migrated) {
      for (const s of SCHEMA) sql.query(s)
      ready = true
      migrated = true
    }
    if (!indexed) {
      upgradeForTenants(sql)
      indexed = true
    }
    return sql.query(statement, ...params)
  }
  const read = (statement: string, ...params: (string | number | null)[]): SqlRow[] => exists() ? sql.query(statement, ...params) : []
  /** A read by tenant on a database from before the tenant column: the column comes first. */
  const readByTenant = (statement: string, ...params: (string | number | null)[]): SqlRow[] => {
    if (exists() && !indexed) {
      upgradeForTenants(sql)
      indexed = true
    }
    return read(statement, ...params)
  }
  const chunks = sqlChunks(read, write)
  const sessionSql: SessionSql = {
    read,
    readCommitted: sql.readCommitted ? (statement, ...params) => (exists() ? sql.readCommitted!(statement, ...params) : []) : read,
    write,
    chunks,
    ...(sql.durable ? { durable: () => sql.durable!() } : {}),
    ...(options.inMemory ? { inMemory: true } : {}),
  }
  /** Records read or written through this object (bounded by the session cap); cleared with the schema. */
  const cached = new Map<string, SessionRecord>()
  /**
   * Every session id with its tenant and whether it ended, read once: creates (is the id taken, how
   * many sessions, how many of this tenant's) and unknown ids never touch SQL.
   */
  let known: Map<string, { tenant: string | undefined; ended: boolean }> | undefined
  let openCount = 0
  const perTenant = new Map<string, number>()
  const countTenant = (tenant: string | undefined, by: 1 | -1) => {
    if (tenant === undefined) return
    const n = (perTenant.get(tenant) ?? 0) + by
    if (n > 0) perTenant.set(tenant, n)
    else perTenant.delete(tenant)
  }
  const directory = () => {
    if (known) return known
    known = new Map()
    for (const row of readByTenant('SELECT id, tenant, ended_ms FROM es_sessions')) {
      const tenant = row.tenant === null || row.tenant === undefined ? undefined : String(row.tenant)
      const ended = row.ended_ms !== null && row.ended_ms !== undefined
      known.set(String(row.id), { tenant, ended })
      countTenant(tenant, 1)
      if (!ended) openCount += 1
    }
    return known
  }
  /** Sessions this object created: their journal and results start empty, nothing to read. */
  const fresh = new Set<string>()
  const num = (rows: SqlRow[], column: string): number | undefined => {
    const v = rows[0]?.[column]
    return v === null || v === undefined ? undefined : Number(v)
  }

  return {
    // An in-memory database ends with the process: short of memory, its ended sessions are
    // evicted (their rows deleted), not unloaded to be rebuilt from rows that cost the same memory.
    durable: !options.inMemory,
    insert(spec, nowMs) {
      const id = spec.session_id
      if (directory().has(id)) return false
      const text = chunks.put(id, 'spec', JSON.stringify(spec))
      write('INSERT INTO es_sessions (id, spec, touched_ms, tenant) VALUES (?, ?, ?, ?)', id, text, nowMs, spec.tenant ?? null)
      cached.set(id, { spec, touchedMs: nowMs })
      directory().set(id, { tenant: spec.tenant, ended: false })
      countTenant(spec.tenant, 1)
      openCount += 1
      fresh.add(id)
      return true
    },
    read(id) {
      const hit = cached.get(id)
      if (hit) return hit
      if (!directory().has(id)) return undefined
      // Misses are not kept: an unknown id per request must not grow the map.
      const row = read('SELECT spec, touched_ms, ended_ms FROM es_sessions WHERE id = ?', id)[0]
      if (!row) return undefined
      const spec = JSON.parse(chunks.get(id, 'spec', String(row.spec))) as SessionSpec
      const record: SessionRecord = row.ended_ms === null || row.ended_ms === undefined
        ? { spec, touchedMs: Number(row.touched_ms) }
        : { spec, touchedMs: Number(row.touched_ms), endedMs: Number(row.ended_ms) }
      cached.set(id, record)
      return record
    },
    storage(id) {
      // Only the first storage of a new session can skip reading: a later one (a rebuild after an
      // unload) must count what the first wrote.
      const isNew = fresh.delete(id)
      return { results: sqliteResults(id, sessionSql, isNew), journal: sqliteJournal(id, sessionSql, isNew) }
    },
    touch(id, nowMs) {
      read('UPDATE es_sessions SET touched_ms = ? WHERE id = ?', nowMs, id)
      const hit = cached.get(id)
      if (hit) hit.touchedMs = nowMs
    },
    markEnded(id, nowMs) {
      read('UPDATE es_sessions SET ended_ms = ? WHERE id = ? AND ended_ms IS NULL', nowMs, id)
      const hit = cached.get(id)
      if (hit && hit.endedMs === undefined) hit.endedMs = nowMs
      const entry = directory().get(id)
      if (entry && !entry.ended) {
        entry.ended = true
        openCount -= 1
      }
    },
    remove(id) {
      cached.delete(id)
      fresh.delete(id)
      const entry = directory().get(id)
      if (entry) {
        known!.delete(id)
        countTenant(entry.tenant, -1)
        if (!entry.ended) openCount -= 1
      }
      read('DELETE FROM es_journal WHERE session_id = ?', id)
      read('DELETE FROM es_results WHERE session_id = ?', id)
      read('DELETE FROM es_sessions WHERE id = ?', id)
      if (migrated || read("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'es_chunks'").length > 0) chunks.drop(id)
    },
    count: (owner) => (owner ? (directory(), perTenant.get(owner.tenant) ?? 0) : directory().size),
    countOpen: () => (directory(), openCount),
    // Every create asks, mostly for none: no statement then.
    leastRecent: (limit, owner) =>
      limit <= 0 ? [] : (owner
        ? readByTenant(
          'SELECT id FROM es_sessions WHERE tenant = ? ORDER BY ended_ms IS NULL, COALESCE(ended_ms, touched_ms) LIMIT ?',
          owner.tenant,
          limit,
        )
        : read('SELECT id FROM es_sessions ORDER BY ended_ms IS NULL, COALESCE(ended_ms, touched_ms) LIMIT ?', limit)).map((r) =>
          String(r.id)
        ),
    expired(nowMs, limits) {
      const idle = read('SELECT id FROM es_sessions WHERE ended_ms IS NULL AND touched_ms <= ?', nowMs - limits.idleTtlMs)
      const kept = read('SELECT id FROM es_sessions WHERE ended_ms IS NOT NULL AND ended_ms <= ?', nowMs - limits.endedRetentionMs)
      return [
        ...idle.map((r) => ({ id: String(r.id), reason: 'idle' as GoneReason })),
        ...kept.map((r) => ({ id: String(r.id), reason: 'retention' as GoneReason })),
      ]
    },
    bury: (n) =>
      void write(
        'INSERT OR REPLACE INTO es_gone (id, reason, at_ms, tenant) VALUES (?, ?, ?, ?)',
        n.id,
        n.reason,
        n.atMs,
        n.tenant ?? null,
      ),
    notice(id) {
      const row = read('SELECT reason, at_ms, tenant FROM es_gone WHERE id = ?', id)[0]
      if (!row) return undefined
      const notice = { id, reason: String(row.reason) as GoneReason, atMs: Number(row.at_ms) }
      return row.tenant === null || row.tenant === undefined ? notice : { ...notice, tenant: String(row.tenant) }
    },
    unbury: (id) => void read('DELETE FROM es_gone WHERE id = ?', id),
    pruneNotices(nowMs, limits) {
      read('DELETE FROM es_gone WHERE at_ms <= ?', nowMs - limits.goneNoticeMs)
      const excess = (num(read('SELECT COUNT(*) AS n FROM es_gone'), 'n') ?? 0) - limits.maxNotices
      if (excess > 0) read('DELETE FROM es_gone WHERE id IN (SELECT id FROM es_gone ORDER BY at_ms LIMIT ?)', excess)
    },
    nextDue(limits) {
      const open = num(read('SELECT MIN(touched_ms) AS t FROM es_sessions WHERE ended_ms IS NULL'), 't')
      const ended = num(read('SELECT MIN(ended_ms) AS t FROM es_sessions WHERE ended_ms IS NOT NULL'), 't')
      const gone = num(read('SELECT MIN(at_ms) AS t FROM es_gone'), 't')
      const times = [
        open === undefined ? undefined : open + limits.idleTtlMs,
        ended === undefined ? undefined : ended + limits.endedRetentionMs,
        gone === undefined ? undefined : gone + limits.goneNoticeMs,
      ].filter((t): t is number => t !== undefined)
      return times.length > 0 ? Math.min(...times) : undefined
    },
    isEmpty: () => (num(read('SELECT (SELECT COUNT(*) FROM es_sessions) + (SELECT COUNT(*) FROM es_gone) AS n'), 'n') ?? 0) === 0,
    forgetSchema() {
      cached.clear()
      fresh.clear()
      known = undefined
      perTenant.clear()
      openCount = 0
      ready = undefined
      indexed = false
      migrated = false
    },
  }
}

/** A database written before tenants were tracked: the tenant index, and the tenant of a notice. */
function upgradeForTenants(sql: Sql): void {
  try {
    sql.query('SELECT tenant FROM es_sessions LIMIT 0')
  } catch {
    sql.query('ALTER TABLE es_sessions ADD COLUMN tenant TEXT')
    // Specs of that time were never split, so each is JSON SQLite can read.
    sql.query("UPDATE es_sessions SET tenant = json_extract(spec, '$.tenant') WHERE json_valid(spec)")
  }
  sql.query(TENANT_INDEX)
  try {
    sql.query('SELECT tenant FROM es_gone LIMIT 0')
  } catch {
    sql.query('ALTER TABLE es_gone ADD COLUMN tenant TEXT')
  }
}

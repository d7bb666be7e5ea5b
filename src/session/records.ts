/**
 * Session records: what a session store keeps about each session besides the live engine (its
 * spec, when it was last active, when it ended, its journal and result log) and the notices left
 * for sessions that are gone. Two implementations: in memory (here) and SQLite
 * (sqlite/records.ts). The store (store.ts) holds the policy; records only keep.
 */
import type { SessionSpec } from '../engine/types.ts'
import { memoryResultStorage, type ResultStorage } from './result-log.ts'
import { type Journal, NO_JOURNAL } from './session.ts'

/** Narrows a count or a listing to the sessions of one tenant. */
export type TenantOwner = { tenant: string }

export type SessionRecord = { spec: SessionSpec; touchedMs: number; endedMs?: number }

/**
 * Why a session went without its client asking: idle too long, pushed out by the cap, kept past
 * retention, or an ended one let go to free memory for others (EVALSTREAM_MAX_PROCESS_BYTES).
 */
export type GoneReason = 'idle' | 'capacity' | 'retention' | 'memory'
/** `tenant`: whose session it was, so only that tenant is told it went (others get a plain 404). */
export type GoneNotice = { id: string; reason: GoneReason; atMs: number; tenant?: string }

/** The times that decide when a record expires. */
export type ExpiryLimits = { idleTtlMs: number; endedRetentionMs: number; goneNoticeMs: number }

export interface SessionRecords {
  /** The records outlive the process (SQLite): a session dropped from memory is rebuilt by replay. */
  readonly durable?: boolean
  /** Adds a session; false (and nothing changes) when the id is taken. */
  insert(spec: SessionSpec, nowMs: number): boolean
  read(id: string): SessionRecord | undefined
  /** Where this session's results and journal are kept. */
  storage(id: string): { results: ResultStorage; journal: Journal }
  touch(id: string, nowMs: number): void
  markEnded(id: string, nowMs: number): void
  /** Forgets the session with its journal and results. */
  remove(id: string): void
  /** Sessions held; with `owner`, only those of that tenant. */
  count(owner?: TenantOwner): number
  /** Sessions not ended yet (for the open-sessions gauge of /metrics). */
  countOpen(): number
  /** Up to `limit` ids, least recently active first (ended before open); with `owner`, only that tenant's. */
  leastRecent(limit: number, owner?: TenantOwner): string[]
  /** Sessions whose idle TTL (open) or retention (ended) is over at `nowMs`. */
  expired(nowMs: number, limits: ExpiryLimits): { id: string; reason: GoneReason }[]
  /** Leaves a notice (for 410 Gone) until `goneNoticeMs` after it, then drops old notices. */
  bury(notice: GoneNotice): void
  notice(id: string): GoneNotice | undefined
  unbury(id: string): void
  pruneNotices(nowMs: number, limits: ExpiryLimits & { maxNotices: number }): void
  /** The earliest time something here expires (an alarm time), or undefined when nothing will. */
  nextDue(limits: ExpiryLimits): number | undefined
  /** Nothing kept at all: no session, no notice. */
  isEmpty(): boolean
}

type MemoryEntry = SessionRecord & { results: ResultStorage }

/**
 * Records in Maps, kept in order so every sweep touches only what expires: `open` in order of last
 * activity (touching moves an entry to the end), `ended` in order of ending, notices in order of
 * burial. Nothing is journaled: an in-memory session never needs replaying.
 * @example
 * const records = memorySessionRecords()
 * records.insert(spec, Date.now())
 */
export function memorySessionRecords(): SessionRecords {
  const open = new Map<string, MemoryEntry>()
  const ended = new Map<string, MemoryEntry>()
  const notices = new Map<string, GoneNotice>()
  // Sessions held per tenant, so a create checks its tenant's quota without a scan.
  const perTenant = new Map<string, number>()
  const countTenant = (tenant: string | undefined, by: 1 | -1) => {
    if (tenant === undefined) return
    const n = (perTenant.get(tenant) ?? 0) + by
    if (n > 0) perTenant.set(tenant, n)
    else perTenant.delete(tenant)
  }
  const entry = (id: string) => open.get(id) ?? ended.get(id)
  return {
    insert(spec, nowMs) {
      if (entry(spec.session_id)) return false
      open.set(spec.session_id, { spec, touchedMs: nowMs, results: memoryResultStorage() })
      countTenant(spec.tenant, 1)
      return true
    },
    read(id) {
      const e = entry(id)
      return e && { spec: e.spec, touchedMs: e.touchedMs, ...(e.endedMs !== undefined ? { endedMs: e.endedMs } : {}) }
    },
    storage(id) {
      const e = entry(id)
      if (!e) throw new Error(`no session record '${id}'`)
      return { results: e.results, journal: NO_JOURNAL }
    },
    touch(id, nowMs) {
      const e = entry(id)
      if (!e) return
      e.touchedMs = nowMs
      if (open.delete(id)) open.set(id, e)
    },
    markEnded(id, nowMs) {
      const e = open.get(id)
      if (!e) return
      open.delete(id)
      e.endedMs = nowMs
      ended.set(id, e)
    },
    remove(id) {
      const e = entry(id)
      if (!e) return
      open.delete(id) || ended.delete(id)
      countTenant(e.spec.tenant, -1)
    },
    count: (owner) => (owner ? (perTenant.get(owner.tenant) ?? 0) : open.size + ended.size),
    countOpen: () => open.size,
    leastRecent(limit, owner) {
      // Ended sessions only wait out their retention; open ones may still get events: ended go first.
      const out: string[] = []
      for (const map of [ended, open]) {
        for (const [id, e] of map) {
          if (out.length >= limit) return out
          if (!owner || e.spec.tenant === owner.tenant) out.push(id)
        }
      }
      return out
    },
    expired(nowMs, limits) {
      const out: { id: string; reason: GoneReason }[] = []
      for (const [id, e] of open) {
        if (e.touchedMs + limits.idleTtlMs > nowMs) break
        out.push({ id, reason: 'idle' })
      }
      for (const [id, e] of ended) {
        if ((e.endedMs ?? 0) + limits.endedRetentionMs > nowMs) break
        out.push({ id, reason: 'retention' })
      }
      return out
    },
    bury(notice) {
      notices.delete(notice.id)
      notices.set(notice.id, notice)
    },
    notice: (id) => notices.get(id),
    unbury: (id) => void notices.delete(id),
    pruneNotices(nowMs, limits) {
      for (const [id, n] of notices) {
        if (n.atMs + limits.goneNoticeMs > nowMs && notices.size <= limits.maxNotices) break
        notices.delete(id)
      }
    },
    nextDue(limits) {
      const times: number[] = []
      const firstOpen = open.values().next().value
      if (firstOpen) times.push(firstOpen.touchedMs + limits.idleTtlMs)
      const firstEnded = ended.values().next().value
      if (firstEnded) times.push((firstEnded.endedMs ?? 0) + limits.endedRetentionMs)
      const firstNotice = notices.values().next().value
      if (firstNotice) times.push(firstNotice.atMs + limits.goneNoticeMs)
      return times.length > 0 ? Math.min(...times) : undefined
    },
    isEmpty: () => open.size + ended.size + notices.size === 0,
  }
}

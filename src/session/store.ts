/**
 * The session store contract, and the one store that implements it over any `SessionRecords`:
 * in memory (Node and Deno without a database), SQLite through node:sqlite (Node and Deno with
 * EVALSTREAM_DB), and SQLite in a Durable Object (worker/durable-store.ts). The store owns the
 * policy: idle TTL, a cap on sessions (least recently active evicted first, ended before open),
 * retention of ended sessions, and notices so a client asking for a session that went is told why.
 */
import { type Failure, failure } from '../engine/problem.ts'
import type { SessionSpec } from '../engine/types.ts'
import { unrefTimer } from '../ingest/unref-timer.ts'
import { DEFAULT_MAX_PROCESS_BYTES, DEFAULT_MAX_SESSION_BYTES, ProcessByteBudget } from './byte-budget.ts'
import { createResultLog } from './result-log.ts'
import { type GoneNotice, type GoneReason, memorySessionRecords, type SessionRecords } from './records.ts'
import { fedSession, type ResultFeed } from './result-feed.ts'
import { OPEN_SESSION_BYTES } from './session-bytes.ts'
import { type EngineFactory, HostedSession, type SessionLifecycleHooks } from './session.ts'
import { sqliteSessionRecords } from './sqlite/records.ts'
import type { Sql } from './sql.ts'

/** An open session with no request for this long is evicted (EVALSTREAM_SESSION_IDLE_TTL_MS). */
export const DEFAULT_SESSION_IDLE_TTL_MS = 60 * 60 * 1000
/** At most this many sessions (open and ended) per store (EVALSTREAM_MAX_SESSIONS). */
export const DEFAULT_MAX_SESSIONS = 10_000
/**
 * At most this many sessions of one tenant (EVALSTREAM_MAX_SESSIONS_PER_TENANT). A tenant's create
 * only ever evicts that tenant's own sessions; sessions without a tenant (open mode) have only the
 * process cap.
 */
export const DEFAULT_MAX_SESSIONS_PER_TENANT = 1_000
/** An ended session's result stays readable this long (EVALSTREAM_ENDED_RETENTION_MS). */
export const DEFAULT_ENDED_RETENTION_MS = 60 * 60 * 1000
/** A session that went is answered 410 (not 404) this long (EVALSTREAM_GONE_NOTICE_MS). */
export const DEFAULT_GONE_NOTICE_MS = 24 * 60 * 60 * 1000
/** Notices kept at most (about 100 bytes each), oldest dropped first. */
export const MAX_GONE_NOTICES = 100_000
/** The sweeper runs at most this far apart, and more often when a TTL is shorter. */
export const MAX_SWEEP_INTERVAL_MS = 30_000

export type SessionLimits = {
  idleTtlMs: number
  maxSessions: number
  maxSessionsPerTenant: number
  endedRetentionMs: number
  goneNoticeMs: number
  /** Encoded bytes one session may hold (src/session/byte-budget.ts). */
  maxSessionBytes: number
  /** Encoded bytes all sessions held in memory may take together. */
  maxProcessBytes: number
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  idleTtlMs: DEFAULT_SESSION_IDLE_TTL_MS,
  maxSessions: DEFAULT_MAX_SESSIONS,
  maxSessionsPerTenant: DEFAULT_MAX_SESSIONS_PER_TENANT,
  endedRetentionMs: DEFAULT_ENDED_RETENTION_MS,
  goneNoticeMs: DEFAULT_GONE_NOTICE_MS,
  maxSessionBytes: DEFAULT_MAX_SESSION_BYTES,
  maxProcessBytes: DEFAULT_MAX_PROCESS_BYTES,
}

export type CreateOutcome = { ok: true; session: HostedSession } | Failure

export interface SessionStore {
  /** 409 problem when the id is taken; 400/422 when the engine refuses the spec. */
  create(spec: SessionSpec, createEngine: EngineFactory): Promise<CreateOutcome>
  /** A live session (rebuilt by replay if the host was restarted); counts as activity. */
  get(id: string, createEngine: EngineFactory): Promise<HostedSession | undefined>
  /** Why a session that existed is gone (for a 410), or undefined (never existed, or deleted). */
  gone(id: string): Promise<GoneNotice | undefined>
  /** Whether the store holds the session now, without rebuilding it or counting as activity. */
  holds?(id: string): boolean
  /** Aborts its judges, closes its subscribers, forgets it; false when there was no such session. */
  delete(id: string): Promise<boolean>
  /** Evicts what expired; returns when the next thing expires (a Durable Object's alarm time). */
  sweep(): number | undefined
  /** Stops the sweeper and aborts live sessions' judges; persisted sessions stay for the next start. */
  close(): void
  /** Counts for /metrics: sessions held now, and evictions since this store started. */
  stats?(): StoreStats
  /** The process byte budget (EVALSTREAM_MAX_PROCESS_BYTES), which OTLP bodies in flight are charged to as well. */
  readonly bytes?: ProcessByteBudget
}

export type StoreStats = {
  /** Sessions held that have not ended. */
  open: number
  /** Ended sessions kept for their results (EVALSTREAM_ENDED_RETENTION_MS). */
  ended: number
  /** Sessions whose engine is in memory right now (the rest are rebuilt by replay on first use). */
  live: number
  evicted: Record<GoneReason, number>
  /** Bytes the sessions in memory hold, by the byte budget's estimate (EVALSTREAM_MAX_PROCESS_BYTES bounds it). */
  heldBytes?: number
}

export const SESSION_EXISTS = (id: string): Failure =>
  failure('session_exists', 'Session already exists', `a session with id '${id}' already exists; pick another session_id or omit it`)

/** A tenant's create when the process is full of other tenants' sessions: nobody else's is evicted for it. */
export const SESSIONS_FULL = (limits: SessionLimits): Failure =>
  failure(
    'no_room_for_session',
    'No room for a session',
    `the server holds ${limits.maxSessions} sessions (EVALSTREAM_MAX_SESSIONS), none of them this tenant's to make room; try again when sessions end or expire`,
  )

/** What a client is told about a session that went without being asked to. */
export function goneDetail(notice: GoneNotice, limits: SessionLimits = DEFAULT_SESSION_LIMITS): string {
  const why: Record<GoneReason, string> = {
    idle: `it had no request for ${limits.idleTtlMs} ms (EVALSTREAM_SESSION_IDLE_TTL_MS)`,
    capacity:
      `the server holds at most ${limits.maxSessions} sessions (EVALSTREAM_MAX_SESSIONS), at most ${limits.maxSessionsPerTenant} of one tenant (EVALSTREAM_MAX_SESSIONS_PER_TENANT), and it was the least recently active of its tenant`,
    retention: `it ended and its result was kept for ${limits.endedRetentionMs} ms (EVALSTREAM_ENDED_RETENTION_MS)`,
    memory:
      `it had ended and the sessions held reached ${limits.maxProcessBytes} bytes (EVALSTREAM_MAX_PROCESS_BYTES); ended sessions go first`,
  }
  return `session '${notice.id}' was evicted at ${new Date(notice.atMs).toISOString()}: ${why[notice.reason]}`
}

export type StoreOptions = {
  limits?: Partial<SessionLimits>
  /** The clock (tests pass a fake one). */
  now?: () => number
  /** 'timer': one unref'd interval per store; 'manual': the host calls sweep() (a Durable Object's alarm). */
  sweeper?: 'timer' | 'manual'
  /** Notices kept at most (default MAX_GONE_NOTICES). */
  maxGoneNotices?: number
  /** Where every newly appended result of every session is published (result-feed.ts). */
  feed?: ResultFeed
}

/**
 * Sessions in memory: nothing survives a restart, so nothing is journaled.
 * @example
 * const app = createApp({ store: memorySessionStore(), createEngine })
 */
export function memorySessionStore(options: StoreOptions = {}): SessionStore {
  return createSessionStore(memorySessionRecords(), options)
}

/**
 * Sessions in SQLite: a restarted host rebuilds each one by replaying its journal on first use.
 * `inMemory`: the database is `:memory:` (sessions end with the process, as the memory store's do,
 * but their events and results are rows, not objects on the heap; the byte budget still counts them).
 * @example
 * const store = sqliteSessionStore(sqlFromDatabaseSync(new DatabaseSync('evalstream.db')))
 */
export function sqliteSessionStore(sql: Sql, options: StoreOptions & { inMemory?: boolean } = {}): SessionStore {
  const { inMemory, ...rest } = options
  return createSessionStore(sqliteSessionRecords(sql, { inMemory }), rest)
}

/**
 * @example
 * const store = createSessionStore(memorySessionRecords(), { limits: { maxSessions: 100 } })
 */
export function createSessionStore(records: SessionRecords, options: StoreOptions = {}): SessionStore {
  const limits: SessionLimits = { ...DEFAULT_SESSION_LIMITS, ...options.limits }
  const now = options.now ?? Date.now
  const live = new Map<string, HostedSession>()
  // Creates and rebuilds in progress: a second request for the id waits for the same one.
  const opening = new Map<string, Promise<HostedSession | undefined>>()
  // Activity is written at most this often per session (a SQLite write per event would double the writes).
  const touchEveryMs = Math.min(1000, Math.floor(limits.idleTtlMs / 10))
  const touchedAt = new Map<string, number>()

  const touch = (id: string) => {
    const t = now()
    if (t - (touchedAt.get(id) ?? -Infinity) < touchEveryMs) return
    touchedAt.set(id, t)
    records.touch(id, t)
  }
  const feed = options.feed
  const hooks = (spec: SessionSpec): SessionLifecycleHooks => {
    const id = spec.session_id
    const who = feed && fedSession(spec)
    return {
      active: () => touch(id),
      ended: () => records.markEnded(id, now()),
      appended: who && ((event) => feed.watchers > 0 && feed.publish({ ...who, event, atMs: now() })),
    }
  }
  const partsFor = (spec: SessionSpec, createEngine: EngineFactory) => {
    const { results, journal } = records.storage(spec.session_id)
    // The sessions' clock is the store's: what an input's arrival time (and so an invocation's
    // duration) is read from, injectable like the rest of the store's time.
    return { spec, log: createResultLog(results), journal, createEngine, lifecycle: hooks(spec), budget: sessionBudget, now }
  }
  const forget = (id: string, detail: string) => {
    live.get(id)?.close(detail)
    live.delete(id)
    touchedAt.delete(id)
    records.remove(id)
  }
  const evicted: Record<GoneReason, number> = { idle: 0, capacity: 0, retention: 0, memory: 0 }
  const evict = (id: string, reason: GoneReason) => {
    evicted[reason] += 1
    const tenant = records.read(id)?.spec.tenant
    const notice = { id, reason, atMs: now(), ...(tenant !== undefined ? { tenant } : {}) }
    forget(id, goneDetail(notice, limits))
    records.bury(notice)
    records.pruneNotices(notice.atMs, { ...limits, maxNotices: options.maxGoneNotices ?? MAX_GONE_NOTICES })
  }
  /** Evicts for one more session of `tenant`: only its own sessions when it has a tenant (quota per tenant). */
  const makeRoom = (tenant: string | undefined) => {
    const overProcess = records.count() - limits.maxSessions + 1
    if (tenant === undefined) {
      for (const oldest of records.leastRecent(Math.max(0, overProcess))) evict(oldest, 'capacity')
      return undefined
    }
    const owner = { tenant }
    const own = records.count(owner)
    const over = Math.max(0, overProcess, own - limits.maxSessionsPerTenant + 1)
    if (over > own) return SESSIONS_FULL(limits)
    for (const oldest of records.leastRecent(over, owner)) evict(oldest, 'capacity')
    return undefined
  }
  /** Lazily, so expiry never depends on when the sweeper last ran. */
  const expireIfDue = (id: string) => {
    const record = records.read(id)
    if (!record) return
    const t = now()
    if (record.endedMs !== undefined ? record.endedMs + limits.endedRetentionMs <= t : record.touchedMs + limits.idleTtlMs <= t) {
      evict(id, record.endedMs !== undefined ? 'retention' : 'idle')
    }
  }

  // The byte budgets (src/session/byte-budget.ts). Short of memory, ended sessions go first: unloaded
  // when their records are durable (rebuilt on demand), evicted otherwise; open ones are never touched.
  const processBudget = new ProcessByteBudget(limits)
  const sessionBudget = { maxSessionBytes: limits.maxSessionBytes, shared: processBudget }
  processBudget.onShortage((needed) => {
    const target = processBudget.used - needed
    for (const [id, session] of live) {
      if (processBudget.used <= target) return
      if (!session.ended || opening.has(id)) continue
      if (records.durable) {
        live.delete(id)
        session.unload()
      } else evict(id, 'memory')
    }
  })

  const store: SessionStore = {
    bytes: processBudget,
    async create(spec, createEngine) {
      const id = spec.session_id
      if (!opening.has(id)) expireIfDue(id)
      if (opening.has(id) || records.read(id)) return SESSION_EXISTS(id)
      if (!processBudget.fits(OPEN_SESSION_BYTES)) return { ok: false, problem: processBudget.refusal(`a new session '${id}'`) }
      const full = makeRoom(spec.tenant)
      if (full) return full
      records.insert(spec, now())
      records.unbury(id)
      touchedAt.set(id, now())
      let outcome: CreateOutcome | undefined
      const open = HostedSession.open(partsFor(spec, createEngine)).then((opened) => {
        outcome = opened
        return opened.ok ? opened.session : undefined
      })
      opening.set(id, open)
      try {
        const session = await open
        if (session) live.set(id, session)
        else forget(id, 'the engine refused the session')
      } finally {
        opening.delete(id)
      }
      return outcome!
    },
    async get(id, createEngine) {
      const pending = opening.get(id)
      if (pending) return pending
      expireIfDue(id)
      const hit = live.get(id)
      if (hit) {
        touch(id)
        return hit
      }
      const record = records.read(id)
      if (!record) return undefined
      const rebuild = HostedSession.open(partsFor(record.spec, createEngine)).then((opened) => {
        // The spec was accepted once; if the engine now refuses it, the session cannot be served.
        if (!opened.ok) throw new Error(`stored session '${id}' no longer opens: ${opened.problem.detail}`)
        live.set(id, opened.session)
        // A rebuilt session is never refused (its events were accepted once); past the budget, ended ones make room.
        processBudget.fits(0)
        return opened.session
      })
      opening.set(id, rebuild)
      try {
        const session = await rebuild
        touch(id)
        return session
      } finally {
        opening.delete(id)
      }
    },
    gone: async (id) => records.notice(id),
    holds: (id) => live.has(id) || opening.has(id) || records.read(id) !== undefined,
    async delete(id) {
      await opening.get(id)?.catch(() => undefined)
      if (!records.read(id)) return false
      forget(id, `session '${id}' was deleted (DELETE /v1/sessions/${id})`)
      return true
    },
    sweep() {
      const t = now()
      for (const { id, reason } of records.expired(t, limits)) if (!opening.has(id)) evict(id, reason)
      records.pruneNotices(t, { ...limits, maxNotices: options.maxGoneNotices ?? MAX_GONE_NOTICES })
      return records.nextDue(limits)
    },
    stats() {
      const open = records.countOpen()
      return { open, ended: records.count() - open, live: live.size, evicted: { ...evicted }, heldBytes: processBudget.used }
    },
    close() {
      if (timer !== undefined) clearInterval(timer)
      for (const session of live.values()) session.abort('the server is shutting down')
    },
  }

  let timer: ReturnType<typeof setInterval> | undefined
  if ((options.sweeper ?? 'timer') === 'timer') {
    const shortest = Math.min(limits.idleTtlMs, limits.endedRetentionMs, limits.goneNoticeMs)
    timer = setInterval(() => store.sweep(), Math.max(1, Math.min(MAX_SWEEP_INTERVAL_MS, Math.floor(shortest / 2))))
    unrefTimer(timer)
  }
  return store
}

/**
 * Reads of the results index (results-index.ts): a page of results, per-criterion aggregates and
 * the session list. Every read is scoped to one tenant ('' = tenant-less, open mode) and never
 * returns rows older than the age limit, even between two prunes.
 */
import type { Sql, SqlRow, SqlValue } from '../session/sql.ts'

/** A page holds at most this many results (`limit` above it is refused). */
export const MAX_RESULTS_PAGE = 1000
export const DEFAULT_RESULTS_PAGE = 100
/** The session list holds at most this many sessions. */
export const MAX_SESSIONS_PAGE = 500
/** /v1/stats splits its window into at most this many time buckets. */
export const MAX_TIME_BUCKETS = 500
/** Score distribution: this many equal buckets over [0, 1]. */
export const SCORE_BUCKETS = 10

export type ResultsQuery = {
  tenant: string
  criterion?: string
  status?: string
  type?: string
  app?: string
  session?: string
  since?: number
  until?: number
  limit?: number
  /** The id after which (going back in time) the page starts: the previous page's `next_cursor`. */
  cursor?: number
}

export type StatsQuery = { tenant: string; criterion?: string; app?: string; since: number; until: number; bucketMs: number }

export type SessionsQuery = { tenant: string; app?: string; open?: boolean; limit?: number }

export type IndexReads = {
  results(q: ResultsQuery): { results: Record<string, unknown>[]; next_cursor: string | null }
  stats(q: StatsQuery): { criteria: Record<string, unknown>[]; apps: AppScorable[] }
  sessions(q: SessionsQuery): { sessions: Record<string, unknown>[] }
}

/** Filters shared by the reads: tenant, age floor and the optional equalities. */
function where(q: { tenant: string; app?: string; criterion?: string; since?: number; until?: number }, floor: number, noIndex = '') {
  const clauses = [`${noIndex}tenant = ?`, `${noIndex}at_ms >= ?`]
  const params: SqlValue[] = [q.tenant, Math.max(q.since ?? 0, floor)]
  if (q.until !== undefined) clauses.push(`${noIndex}at_ms < ?`), params.push(q.until)
  if (q.app !== undefined) clauses.push('app = ?'), params.push(q.app)
  if (q.criterion !== undefined) clauses.push('criterion = ?'), params.push(q.criterion)
  return { clauses, params }
}

/** /v1/stats names at most this many distinct reasons per app for its NOT_EVALUATED results. */
export const MAX_REASONS_PER_APP = 3

/**
 * How much of an app's traffic could be scored: its criterion results that pass or fail against
 * those that could not be computed (NOT_EVALUATED: content not captured, no reference, ...), with
 * the most frequent reasons. INFORMATIONAL values (counts, tokens, seconds) are not in the share.
 */
export type AppScorable = {
  app: string
  decided: number
  scored: number
  not_evaluated: number
  scorable_share: number | null
  not_evaluated_reasons: Array<{ reason: string; count: number }>
}

function scorableByApp(sql: Sql, filter: string, params: SqlValue[]): AppScorable[] {
  const apps = new Map<string, AppScorable>()
  for (
    const r of sql.query(
      `SELECT app, SUM(status IN ('PASSED', 'FAILED')) AS scored, SUM(status = 'NOT_EVALUATED') AS not_evaluated
       FROM es_index_results WHERE ${filter} AND status <> 'INFORMATIONAL' GROUP BY app ORDER BY app`,
      ...params,
    )
  ) {
    const scored = Number(r.scored)
    const notEvaluated = Number(r.not_evaluated)
    apps.set(String(r.app), {
      app: String(r.app),
      decided: scored + notEvaluated,
      scored,
      not_evaluated: notEvaluated,
      scorable_share: scored + notEvaluated > 0 ? scored / (scored + notEvaluated) : null,
      not_evaluated_reasons: [],
    })
  }
  // Only NOT_EVALUATED rows are read for their reason (in the stored data), a small part of the rows.
  for (
    const r of sql.query(
      `SELECT app, json_extract(data, '$.reason') AS reason, COUNT(*) AS n FROM es_index_results
       WHERE ${filter} AND status = 'NOT_EVALUATED' GROUP BY app, reason ORDER BY app, n DESC, reason`,
      ...params,
    )
  ) {
    const entry = apps.get(String(r.app))
    if (entry && entry.not_evaluated_reasons.length < MAX_REASONS_PER_APP) {
      entry.not_evaluated_reasons.push({ reason: r.reason === null ? '(no reason given)' : String(r.reason), count: Number(r.n) })
    }
  }
  return [...apps.values()]
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

/**
 * @example indexReads(sql, () => Date.now() - maxAgeMs).results({ tenant: '', status: 'FAILED' })
 */
export function indexReads(sql: Sql, floor: () => number): IndexReads {
  return {
    results(q) {
      // `+` keeps SQLite off the time and stats indexes here: newest-first pages walk the primary
      // key and stop after `limit` matches; a session filter still uses its index.
      const { clauses, params } = where(q, floor(), '+')
      if (q.status !== undefined) clauses.push('status = ?'), params.push(q.status)
      if (q.type !== undefined) clauses.push('type = ?'), params.push(q.type)
      if (q.session !== undefined) clauses.push('session_id = ?'), params.push(q.session)
      if (q.cursor !== undefined) clauses.push('id < ?'), params.push(q.cursor)
      const limit = Math.min(q.limit ?? DEFAULT_RESULTS_PAGE, MAX_RESULTS_PAGE)
      const rows = sql.query(`SELECT * FROM es_index_results WHERE ${clauses.join(' AND ')} ORDER BY id DESC LIMIT ?`, ...params, limit + 1)
      const page = rows.slice(0, limit)
      return { results: page.map(resultOf), next_cursor: rows.length > limit ? String(page.at(-1)?.id) : null }
    },

    stats(q) {
      const { clauses, params } = where(q, floor())
      clauses.push("type = 'criterion.result'", 'current = 1')
      const filter = clauses.join(' AND ')
      const byCriterion = new Map<string, Entry>()
      const entry = (name: string): Entry => {
        let e = byCriterion.get(name)
        if (!e) byCriterion.set(name, e = newEntry(name))
        return e
      }
      for (
        const r of sql.query(
          `SELECT criterion, status, COUNT(*) AS n, AVG(score) AS mean FROM es_index_results WHERE ${filter} GROUP BY criterion, status`,
          ...params,
        )
      ) {
        const e = entry(String(r.criterion))
        const n = Number(r.n)
        e.total += n
        e.counts[String(r.status) as keyof typeof e.counts] = n
        // The overall mean, from the per-status means (INFORMATIONAL metrics are values: tokens, calls, seconds).
        if (r.mean !== null) (e.sum += Number(r.mean) * n), (e.scored += n)
      }
      for (
        const r of sql.query(
          `SELECT criterion, CASE WHEN score IS NULL THEN -1 WHEN score < 0 OR score > 1 THEN -2 WHEN score >= 1 THEN ${SCORE_BUCKETS - 1}
         ELSE CAST(score * ${SCORE_BUCKETS} AS INTEGER) END AS b, COUNT(*) AS n, AVG(score) AS mean
         FROM es_index_results WHERE ${filter} GROUP BY criterion, b`,
          ...params,
        )
      ) {
        const e = entry(String(r.criterion))
        const b = Number(r.b)
        if (b === -1) e.no_score += Number(r.n)
        else if (b === -2) e.out_of_range += Number(r.n)
        else e.score_buckets[b]!.count += Number(r.n)
      }
      for (
        const r of sql.query(
          `SELECT criterion, CAST((at_ms - ?) / ? AS INTEGER) AS t, COUNT(*) AS n, SUM(status = 'PASSED') AS passed, SUM(status = 'FAILED') AS failed,
         SUM(status = 'INFORMATIONAL') AS informational, COUNT(score) AS scored, AVG(score) AS mean FROM es_index_results WHERE ${filter}
         GROUP BY criterion, t ORDER BY t`,
          q.since,
          q.bucketMs,
          ...params,
        )
      ) {
        const passed = Number(r.passed)
        const failed = Number(r.failed)
        entry(String(r.criterion)).over_time.push({
          start_ms: q.since + Number(r.t) * q.bucketMs,
          total: Number(r.n),
          passed,
          failed,
          not_evaluated: Number(r.n) - passed - failed - Number(r.informational),
          informational: Number(r.informational),
          pass_rate: passed + failed > 0 ? passed / (passed + failed) : null,
          // How many of the bucket's results have a score: the weight of its mean when buckets are merged.
          scored: Number(r.scored),
          mean_score: num(r.mean),
        })
      }
      const criteria = [...byCriterion.values()].map(({ sum, scored, ...e }) => {
        const { PASSED, FAILED } = e.counts
        return { ...e, pass_rate: PASSED + FAILED > 0 ? PASSED / (PASSED + FAILED) : null, mean_score: scored > 0 ? sum / scored : null }
      })
      criteria.sort((a, b) => a.criterion.localeCompare(b.criterion))
      return { criteria, apps: scorableByApp(sql, filter, params) }
    },

    sessions(q) {
      const clauses = ['tenant = ?', 'last_ms >= ?']
      const params: SqlValue[] = [q.tenant, floor()]
      if (q.app !== undefined) clauses.push('app = ?'), params.push(q.app)
      if (q.open !== undefined) clauses.push(q.open ? 'status IS NULL' : 'status IS NOT NULL')
      const limit = Math.min(q.limit ?? DEFAULT_RESULTS_PAGE, MAX_SESSIONS_PAGE)
      const rows = sql.query(
        `SELECT * FROM es_index_sessions WHERE ${clauses.join(' AND ')} ORDER BY last_ms DESC LIMIT ?`,
        ...params,
        limit,
      )
      const sessions = rows.map((r) => ({
        session_id: String(r.session_id),
        ...(r.tenant ? { tenant: String(r.tenant) } : {}),
        ...(r.app ? { app: String(r.app) } : {}),
        first_at: new Date(Number(r.first_ms)).toISOString(),
        last_at: new Date(Number(r.last_ms)).toISOString(),
        invocations: Number(r.invocations),
        status: r.status === null ? 'OPEN' : String(r.status),
        criteria: {} as Record<string, { passed: number; failed: number; not_evaluated: number; informational: number }>,
      }))
      if (sessions.length === 0) return { sessions }
      const byId = new Map(sessions.map((s) => [s.session_id, s]))
      const marks = sessions.map(() => '?').join(', ')
      for (
        const r of sql.query(
          `SELECT session_id, criterion, status, COUNT(*) AS n FROM es_index_results WHERE type = 'criterion.result' AND current = 1
         AND session_id IN (${marks}) GROUP BY session_id, criterion, status`,
          ...byId.keys(),
        )
      ) {
        const s = byId.get(String(r.session_id))!
        const c = (s.criteria[String(r.criterion)] ??= { passed: 0, failed: 0, not_evaluated: 0, informational: 0 })
        const key = r.status === 'PASSED'
          ? 'passed'
          : r.status === 'FAILED'
          ? 'failed'
          : r.status === 'INFORMATIONAL'
          ? 'informational'
          : 'not_evaluated'
        c[key] += Number(r.n)
      }
      return { sessions }
    },
  }
}

type Entry = ReturnType<typeof newEntry>

function newEntry(criterion: string) {
  return {
    criterion,
    total: 0,
    counts: { PASSED: 0, FAILED: 0, NOT_EVALUATED: 0, INFORMATIONAL: 0 },
    score_buckets: Array.from({ length: SCORE_BUCKETS }, (_, i) => ({ from: i / SCORE_BUCKETS, to: (i + 1) / SCORE_BUCKETS, count: 0 })),
    no_score: 0,
    out_of_range: 0,
    over_time: [] as Record<string, unknown>[],
    sum: 0,
    scored: 0,
  }
}

/** A row as the API shows it: names as in the result stream, times in ISO and ms. */
function resultOf(r: SqlRow): Record<string, unknown> {
  return {
    id: String(r.id),
    session_id: String(r.session_id),
    seq: Number(r.seq),
    type: String(r.type),
    at: new Date(Number(r.at_ms)).toISOString(),
    at_ms: Number(r.at_ms),
    ...(r.tenant ? { tenant: String(r.tenant) } : {}),
    ...(r.app ? { app: String(r.app) } : {}),
    ...(r.criterion !== null ? { criterion: String(r.criterion) } : {}),
    ...(r.invocation_index !== null ? { invocation_index: Number(r.invocation_index) } : {}),
    ...(r.status !== null ? { status: String(r.status) } : {}),
    score: num(r.score),
    ...(r.threshold !== null ? { threshold: Number(r.threshold) } : {}),
    current: Number(r.current) === 1,
    data: JSON.parse(String(r.data)) as unknown,
  }
}

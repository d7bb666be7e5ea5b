/**
 * Query parameters of the monitoring routes (results-routes.ts), checked: a bad one is named in a
 * 400 problem with what it should be.
 */
import { type Failure, failure } from '../engine/problem.ts'
import type { Context } from 'hono'
import {
  MAX_RESULTS_PAGE,
  MAX_SESSIONS_PAGE,
  MAX_TIME_BUCKETS,
  type ResultsQuery,
  type SessionsQuery,
  type StatsQuery,
} from '../monitor/results-index-query.ts'

/** /v1/stats looks back this far when `since` is not given: 24 hours. */
export const DEFAULT_STATS_WINDOW_MS = 24 * 60 * 60 * 1000
/** ... in about this many time buckets when `bucket_ms` is not given. */
export const DEFAULT_TIME_BUCKETS = 24

const STATUSES = new Set(['PASSED', 'FAILED', 'NOT_EVALUATED', 'INFORMATIONAL'])
const TYPES = new Set(['criterion.result', 'case.result', 'error'])

export type Parsed<T> = { ok: true; value: T } | Failure

class BadParam extends Error {}

/** A time: whole ms since the epoch, or an ISO 8601 date. */
function time(c: Context, name: string): number | undefined {
  const raw = c.req.query(name)
  if (raw === undefined || raw === '') return undefined
  const n = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw)
  if (!Number.isSafeInteger(n)) throw new BadParam(`query parameter '${name}' must be ms since the epoch or an ISO 8601 time, not '${raw}'`)
  return n
}

function whole(c: Context, name: string, min: number, max: number): number | undefined {
  const raw = c.req.query(name)
  if (raw === undefined || raw === '') return undefined
  const n = Number(raw)
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    throw new BadParam(`query parameter '${name}' must be a whole number from ${min} to ${max}, not '${raw}'`)
  }
  return n
}

function oneOf(c: Context, name: string, allowed: Set<string>): string | undefined {
  const raw = c.req.query(name)
  if (raw === undefined || raw === '') return undefined
  if (!allowed.has(raw)) throw new BadParam(`query parameter '${name}' must be one of ${[...allowed].join(', ')}, not '${raw}'`)
  return raw
}

function text(c: Context, name: string): string | undefined {
  const raw = c.req.query(name)
  return raw === undefined || raw === '' ? undefined : raw
}

function parsing<T>(read: () => T): Parsed<T> {
  try {
    return { ok: true, value: read() }
  } catch (e) {
    if (e instanceof BadParam) return failure('invalid_query', 'Invalid query', e.message)
    throw e
  }
}

/** @example resultsQuery(c, '') // { ok: true, value: { tenant: '', status: 'FAILED', ... } } */
export function resultsQuery(c: Context, tenant: string): Parsed<ResultsQuery> {
  return parsing(() => ({
    tenant,
    criterion: text(c, 'criterion'),
    status: oneOf(c, 'status', STATUSES),
    type: oneOf(c, 'type', TYPES),
    app: text(c, 'app'),
    session: text(c, 'session'),
    since: time(c, 'since'),
    until: time(c, 'until'),
    limit: whole(c, 'limit', 1, MAX_RESULTS_PAGE),
    cursor: whole(c, 'cursor', 1, Number.MAX_SAFE_INTEGER),
  }))
}

/**
 * The window is [since, until). Without `until` it ends just after the current millisecond, so a
 * result recorded in the same millisecond as the request is counted.
 * @example statsQuery(c, '', Date.now())
 */
export function statsQuery(c: Context, tenant: string, nowMs: number): Parsed<StatsQuery> {
  return parsing(() => {
    const until = time(c, 'until') ?? nowMs + 1
    const since = time(c, 'since') ?? until - DEFAULT_STATS_WINDOW_MS
    if (since >= until) throw new BadParam(`query parameter 'since' (${since}) must be before 'until' (${until})`)
    const bucketMs = whole(c, 'bucket_ms', 1, Number.MAX_SAFE_INTEGER) ?? Math.max(1, Math.ceil((until - since) / DEFAULT_TIME_BUCKETS))
    if ((until - since) / bucketMs > MAX_TIME_BUCKETS) {
      throw new BadParam(
        `query parameter 'bucket_ms' (${bucketMs}) makes more than ${MAX_TIME_BUCKETS} time buckets between 'since' and 'until'`,
      )
    }
    return { tenant, criterion: text(c, 'criterion'), app: text(c, 'app'), since, until, bucketMs }
  })
}

/** @example sessionsQuery(c, 'acme') */
export function sessionsQuery(c: Context, tenant: string): Parsed<SessionsQuery> {
  return parsing(() => {
    const open = oneOf(c, 'open', new Set(['true', 'false']))
    return { tenant, app: text(c, 'app'), limit: whole(c, 'limit', 1, MAX_SESSIONS_PAGE), ...(open ? { open: open === 'true' } : {}) }
  })
}

/**
 * A tenant's results index spread over EVALSTREAM_INDEX_SHARDS objects of the INDEX namespace:
 * each session's results go to one shard, by a hash of the session id (index-feed.ts), so a
 * session's revisions and its row stay in one place; GET /v1/results, /v1/stats and /v1/sessions
 * ask every shard at once and merge their answers here, in the stateless router:
 *
 * - results: the newest first, by result time, from each shard's newest-first page; the cursor
 *   holds each shard's position (`<id>.<id>...`, 0: that shard has nothing more), so a later page
 *   never shows a result newer than the page before it, nor one twice: the same rule as one index.
 *   Row ids are the shard's, written `<shard>.<id>`.
 * - stats: counts summed, means weighted by how many results have a score, per criterion and per
 *   time bucket; the window is fixed here once, so every shard counts the same one.
 * - sessions: the most recently active first, at most `limit`.
 *
 * With one shard every read goes to it unchanged. Shard 0 is named as the single index always
 * was (`index:<tenant>`), so a deployment that adds shards keeps reading what it had.
 */
import { DEFAULT_RESULTS_PAGE, MAX_SESSIONS_PAGE } from '../src/monitor/results-index-query.ts'
import type { DurableObjectNamespace } from './types.ts'
import { problemOf } from '../src/engine/problem.ts'
import { problemResponse } from '../src/http/problem.ts'

/**
 * @example indexShardName('acme', 0) // 'index:acme'
 * @example indexShardName('acme', 2) // 'index/2/acme'
 */
export function indexShardName(tenant: string | undefined, shard: number): string {
  return shard === 0 ? `index:${tenant ?? ''}` : `index/${shard}/${tenant ?? ''}`
}

export function indexShardStub(namespace: DurableObjectNamespace, tenant: string | undefined, shard: number) {
  return namespace.get(namespace.idFromName(indexShardName(tenant, shard)))
}

/** A shard's answer, as the routes write it (src/http/results-routes.ts). */
type Body = Record<string, unknown> & {
  results?: Row[]
  next_cursor?: string | null
  sessions?: Session[]
  criteria?: CriterionStats[]
}
type Row = Record<string, unknown> & { id: string; at_ms: number }
type Session = Record<string, unknown> & { session_id: string; last_at: string }
type Bucket = Record<string, unknown> & {
  start_ms: number
  total: number
  passed: number
  failed: number
  not_evaluated: number
  informational: number
  scored: number
  pass_rate: number | null
  mean_score: number | null
}
type CriterionStats = Record<string, unknown> & {
  criterion: string
  total: number
  counts: Record<string, number>
  pass_rate: number | null
  mean_score: number | null
  score_buckets: Array<{ from: number; to: number; count: number }>
  no_score: number
  out_of_range: number
  over_time: Bucket[]
}

/**
 * Answers a monitoring read of `tenant` from its `shards` index objects.
 * @example readIndexShards(request, env.INDEX, 'acme', 4)
 */
export async function readIndexShards(
  request: Request,
  namespace: DurableObjectNamespace,
  tenant: string | undefined,
  shards: number,
): Promise<Response> {
  if (shards <= 1) return indexShardStub(namespace, tenant, 0).fetch(request)
  const url = new URL(request.url)
  const ask = async (shard: number, params: URLSearchParams): Promise<Response> => {
    const at = new URL(url)
    at.search = params.toString()
    return indexShardStub(namespace, tenant, shard).fetch(new Request(at.href, { method: 'GET', headers: request.headers }))
  }
  /** Every shard's answer, or the first that is not a 200 (a bad query is refused alike by all). */
  const askAll = async (params: (shard: number) => URLSearchParams | undefined): Promise<Body[] | Response> => {
    const answers = await Promise.all(
      Array.from({ length: shards }, (_, k) => {
        const p = params(k)
        return p ? ask(k, p) : undefined
      }),
    )
    const bad = answers.find((a) => a !== undefined && a.status !== 200)
    if (bad) {
      for (const a of answers) if (a !== bad) await a?.body?.cancel()
      return bad
    }
    return Promise.all(answers.map(async (a) => (a ? ((await a.json()) as Body) : { results: [], next_cursor: null })))
  }

  if (url.pathname === '/v1/results') return results(url.searchParams, shards, askAll)
  if (url.pathname === '/v1/stats') {
    const params = new URLSearchParams(url.searchParams)
    // The default window ends just after now (results-query.ts): fixed once for every shard.
    if (!params.get('until')) params.set('until', String(Date.now() + 1))
    const bodies = await askAll(() => params)
    return bodies instanceof Response ? bodies : Response.json({ ...bodies[0], criteria: mergeStats(bodies.map((b) => b.criteria ?? [])) })
  }
  const bodies = await askAll(() => url.searchParams)
  if (bodies instanceof Response) return bodies
  const limit = Math.min(Number(url.searchParams.get('limit') || DEFAULT_RESULTS_PAGE), MAX_SESSIONS_PAGE)
  return Response.json({ ...bodies[0], sessions: mergeSessions(bodies.map((b) => b.sessions ?? []), limit) })
}

async function results(
  query: URLSearchParams,
  shards: number,
  askAll: (params: (shard: number) => URLSearchParams | undefined) => Promise<Body[] | Response>,
): Promise<Response> {
  const raw = query.get('cursor')
  let positions: number[] | undefined
  if (raw) {
    positions = raw.split('.').map(Number)
    if (positions.length !== shards || positions.some((p) => !Number.isSafeInteger(p) || p < 0) || !/^\d+(\.\d+)*$/.test(raw)) {
      return problemResponse(problemOf(
        'invalid_query',
        'Invalid query',
        `query parameter 'cursor' must be a next_cursor of this index (${shards} positions joined by '.'), not '${raw}'`,
      ))
    }
  }
  const bodies = await askAll((k) => {
    const at = positions?.[k]
    if (at === 0) return undefined
    const params = new URLSearchParams(query)
    if (at === undefined) params.delete('cursor')
    else params.set('cursor', String(at))
    return params
  })
  if (bodies instanceof Response) return bodies
  const limit = Number(query.get('limit') || DEFAULT_RESULTS_PAGE)
  const rows = bodies.map((b) => b.results ?? [])
  const taken = rows.map(() => 0)
  const page: Row[] = []
  while (page.length < limit) {
    let best = -1
    for (let k = 0; k < shards; k++) {
      const head = rows[k]![taken[k]!]
      if (head && (best < 0 || Number(head.at_ms) > Number(rows[best]![taken[best]!]!.at_ms))) best = k
    }
    if (best < 0) break
    const row = rows[best]![taken[best]!++]!
    page.push({ ...row, id: `${best}.${row.id}` })
  }
  let more = false
  const next = rows.map((list, k) => {
    if (taken[k]! < list.length) {
      more = true
      // Past the last row taken from this shard; none taken: from its newest row of this page on.
      return taken[k]! > 0 ? Number(list[taken[k]! - 1]!.id) : Number(list[0]!.id) + 1
    }
    if (bodies[k]!.next_cursor !== null && bodies[k]!.next_cursor !== undefined) {
      more = true
      return Number(list.at(-1)!.id)
    }
    return 0
  })
  const { results: _, next_cursor: __, ...rest } = bodies[0]!
  return Response.json({ ...rest, results: page, next_cursor: more ? next.join('.') : null })
}

/** Sessions of every shard, the most recently active first; a session listed by two (the shard count changed) once. */
function mergeSessions(lists: Session[][], limit: number): Session[] {
  const all = lists.flat().sort((a, b) => Date.parse(b.last_at) - Date.parse(a.last_at))
  const seen = new Set<string>()
  return all.filter((s) => !seen.has(s.session_id) && seen.add(s.session_id)).slice(0, limit)
}

/** Per-criterion stats of every shard as one index would count them. */
function mergeStats(lists: CriterionStats[][]): CriterionStats[] {
  const byName = new Map<string, CriterionStats>()
  const weighted = (a: { mean_score: number | null }, b: { mean_score: number | null }, weightA: number, weightB: number) => {
    const w = weightA + weightB
    if (w === 0) return null
    return ((a.mean_score ?? 0) * weightA + (b.mean_score ?? 0) * weightB) / w
  }
  for (const c of lists.flat()) {
    const seen = byName.get(c.criterion)
    if (!seen) {
      byName.set(c.criterion, structuredClone(c))
      continue
    }
    seen.mean_score = weighted(seen, c, seen.total - seen.no_score, c.total - c.no_score)
    seen.total += c.total
    for (const status of Object.keys(seen.counts)) seen.counts[status] = seen.counts[status]! + (c.counts[status] ?? 0)
    seen.score_buckets.forEach((b, i) => (b.count += c.score_buckets[i]?.count ?? 0))
    seen.no_score += c.no_score
    seen.out_of_range += c.out_of_range
    const passed = seen.counts.PASSED ?? 0
    const failed = seen.counts.FAILED ?? 0
    seen.pass_rate = passed + failed > 0 ? passed / (passed + failed) : null
    for (const t of c.over_time) {
      const same = seen.over_time.find((s) => s.start_ms === t.start_ms)
      if (!same) {
        seen.over_time.push({ ...t })
        continue
      }
      same.mean_score = weighted(same, t, same.scored, t.scored)
      for (const k of ['total', 'passed', 'failed', 'not_evaluated', 'informational', 'scored'] as const) same[k] += t[k]
      same.pass_rate = same.passed + same.failed > 0 ? same.passed / (same.passed + same.failed) : null
    }
    seen.over_time.sort((a, b) => a.start_ms - b.start_ms)
  }
  return [...byName.values()].sort((a, b) => String(a.criterion).localeCompare(String(b.criterion)))
}

/**
 * Monitoring across sessions in process (app.request): GET /v1/results filters and pages,
 * GET /v1/stats aggregates, GET /v1/sessions lists, each tenant sees only its own, the retention
 * limits drop the oldest rows, and a replayed session counts nothing twice.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { MAX_RESULTS_PAGE } from '../../../src/monitor/results-index-query.ts'
import { indexLimitsFromEnv } from '../../../src/config/results-index.ts'
import { indexedHost } from '../../support/results-support.ts'

const TRAJECTORY = 'tool_trajectory_avg_score'
const ACME = 'a'.repeat(32)
const GLOBEX = 'g'.repeat(32)
/** Every host here runs on a stopped clock: results are stamped, and read, in this very millisecond. */
const T = Date.UTC(2026, 0, 15, 12, 0, 0)
const stopped = { now: () => T }

describe('GET /v1/results', () => {
  it('filters by status, criterion, app, session and time, newest first', async () => {
    const host = indexedHost({}, stopped)
    await host.run('good', { app: 'weather' })
    await host.run('bad', { app: 'other', tools: ['get_time'] })
    const failed = await host.json('/v1/results?status=FAILED')
    expect(failed.results.map((r: any) => [r.session_id, r.criterion ?? r.type])).toEqual([
      ['bad', 'case.result'],
      ['bad', TRAJECTORY],
    ])
    const trajectory = await host.json(`/v1/results?criterion=${TRAJECTORY}`)
    expect(trajectory.results.map((r: any) => [r.session_id, r.status, r.score])).toEqual([
      ['bad', 'FAILED', 0],
      ['good', 'PASSED', 1],
    ])
    expect((await host.json('/v1/results?app=weather')).results.every((r: any) => r.session_id === 'good' && r.app === 'weather')).toBe(
      true,
    )
    expect((await host.json('/v1/results?session=bad&type=case.result')).results).toHaveLength(1)
    // `since` is inclusive and `until` exclusive, to the millisecond.
    expect((await host.json(`/v1/results?since=${T + 1}`)).results).toEqual([])
    expect((await host.json(`/v1/results?until=${T}`)).results).toEqual([])
    const everything = (await host.json('/v1/results')).results.length
    expect(everything).toBeGreaterThan(6)
    expect((await host.json(`/v1/results?since=${new Date(T).toISOString()}&until=${T + 1}`)).results.length).toBe(everything)
  })

  it('pages with next_cursor: every result once, in order', async () => {
    const host = indexedHost()
    for (const id of ['p1', 'p2', 'p3']) await host.run(id)
    const all = (await host.json('/v1/results')).results.map((r: any) => r.id)
    expect(all.length).toBeGreaterThan(8)
    const seen: string[] = []
    let cursor: string | null = ''
    while (cursor !== null) {
      const page: any = await host.json(`/v1/results?limit=4${cursor ? `&cursor=${cursor}` : ''}`)
      expect(page.results.length).toBeLessThanOrEqual(4)
      seen.push(...page.results.map((r: any) => r.id))
      cursor = page.next_cursor
    }
    expect(seen).toEqual(all)
  })

  it('names a bad parameter in a 400 problem', async () => {
    const host = indexedHost()
    for (
      const [query, words] of [
        ['status=MAYBE', "'status' must be one of PASSED, FAILED, NOT_EVALUATED"],
        [`limit=${MAX_RESULTS_PAGE + 1}`, `'limit' must be a whole number from 1 to ${MAX_RESULTS_PAGE}`],
        ['since=yesterday', "'since' must be ms since the epoch or an ISO 8601 time"],
        ['cursor=-3', "'cursor' must be a whole number"],
      ]
    ) {
      const res = await host.call('GET', `/v1/results?${query}`)
      expect(res.status).toBe(400)
      expect(((await res.json()) as any).detail).toContain(words)
    }
    const stats = await host.call('GET', '/v1/stats?since=1000&until=900000000&bucket_ms=1')
    expect(((await stats.json()) as any).detail).toContain("'bucket_ms' (1) makes more than 500 time buckets")
  })
})

describe('GET /v1/stats and GET /v1/sessions', () => {
  it('aggregates per criterion: counts, pass rate, score buckets, time buckets', async () => {
    // Recorded in the same millisecond as the request: the default window still counts them.
    const host = indexedHost({}, stopped)
    await host.run('s-good')
    await host.run('s-bad', { tools: ['get_time'] })
    await host.run('s-good-2')
    const stats = await host.json('/v1/stats?bucket_ms=3600000')
    expect([stats.since, stats.until]).toEqual([new Date(T + 1 - 86_400_000).toISOString(), new Date(T + 1).toISOString()])
    const trajectory = stats.criteria.find((c: any) => c.criterion === TRAJECTORY)
    expect(trajectory.counts).toEqual({ PASSED: 2, FAILED: 1, NOT_EVALUATED: 0, INFORMATIONAL: 0 })
    expect(trajectory.total).toBe(3)
    expect(trajectory.pass_rate).toBeCloseTo(2 / 3)
    expect(trajectory.score_buckets[0].count).toBe(1)
    expect(trajectory.score_buckets[9].count).toBe(2)
    expect(trajectory.over_time.reduce((n: number, t: any) => n + t.total, 0)).toBe(3)
    expect(stats.criteria.map((c: any) => c.criterion)).toEqual(expect.arrayContaining(['response_match_score', TRAJECTORY]))
    // ADK's efficiency metrics are values, always reported: counted as INFORMATIONAL, with a mean, no pass rate.
    const calls = stats.criteria.find((c: any) => c.criterion === 'tool_call_count_v1')
    expect(calls).toMatchObject({ total: 3, pass_rate: null, mean_score: 2, counts: { INFORMATIONAL: 3 } })
    const sessions = await host.json('/v1/sessions')
    expect(sessions.sessions.map((s: any) => [s.session_id, s.status, s.criteria[TRAJECTORY]])).toEqual([
      ['s-good-2', 'PASSED', { passed: 1, failed: 0, not_evaluated: 0, informational: 0 }],
      ['s-bad', 'FAILED', { passed: 0, failed: 1, not_evaluated: 0, informational: 0 }],
      ['s-good', 'PASSED', { passed: 1, failed: 0, not_evaluated: 0, informational: 0 }],
    ])
    const filtered = await host.json('/v1/stats?app=nothing-here')
    expect(filtered.criteria).toEqual([])
  })

  it('lists an open session as OPEN until its case result', async () => {
    const host = indexedHost()
    await host.run('still-open', { end: false })
    expect((await host.json('/v1/sessions?open=true')).sessions.map((s: any) => [s.session_id, s.status, s.invocations])).toEqual([
      ['still-open', 'OPEN', 1],
    ])
    expect((await host.json('/v1/sessions?open=false')).sessions).toEqual([])
  })
})

describe('tenants', () => {
  it('a tenant sees only its own results, stats and sessions; naming another is refused', async () => {
    const host = indexedHost({ EVALSTREAM_TOKENS: `acme:${ACME},globex:${GLOBEX}` })
    await host.run('acme-1', { token: ACME })
    await host.run('globex-1', { token: GLOBEX, tools: ['get_time'] })
    const acme = await host.json('/v1/results', ACME)
    expect(acme.tenant).toBe('acme')
    expect(new Set(acme.results.map((r: any) => r.session_id))).toEqual(new Set(['acme-1']))
    const globexStats = await host.json('/v1/stats', GLOBEX)
    expect(globexStats.criteria.find((c: any) => c.criterion === TRAJECTORY).counts).toEqual({
      PASSED: 0,
      FAILED: 1,
      NOT_EVALUATED: 0,
      INFORMATIONAL: 0,
    })
    expect((await host.json('/v1/sessions', ACME)).sessions.map((s: any) => s.session_id)).toEqual(['acme-1'])
    const other = await host.call('GET', '/v1/results?tenant=acme', GLOBEX)
    expect(other.status).toBe(403)
    expect(((await other.json()) as any).detail).toContain("your token is tenant 'globex', not 'acme'")
    expect((await host.call('GET', '/v1/stats')).status).toBe(401)
  })
})

describe('retention and replay', () => {
  it('keeps at most maxRows results, oldest dropped first, and nothing older than maxAgeMs', async () => {
    let now = T
    const host = indexedHost({}, { limits: { maxRows: 20, maxAgeMs: 10_000 }, now: () => now })
    await host.run('r1')
    const perSession = (await host.json('/v1/results?since=0')).results.length
    await host.run('r2')
    await host.run('r3')
    // Whole sessions r2 and r3 and the newest rows of r1 (its case result among them): oldest dropped first.
    const kept = (await host.json('/v1/results?since=0&limit=1000')).results
    expect(kept).toHaveLength(20)
    const bySession = (id: string) => kept.filter((r: any) => r.session_id === id).length
    expect([bySession('r3'), bySession('r2'), bySession('r1')]).toEqual([perSession, perSession, 20 - 2 * perSession])
    expect(20 - 2 * perSession).toBeLessThan(perSession)
    expect(kept.at(-1).type).toBe('criterion.result')
    expect(kept.filter((r: any) => r.session_id === 'r1')[0].type).toBe('case.result')
    now = T + 10_001
    // Reads apply the age limit at once, before any prune ran.
    expect((await host.json('/v1/results?since=0')).results).toEqual([])
    host.index.prune()
    expect((await host.json('/v1/sessions')).sessions).toEqual([])
  })

  it('reads its limits from EVALSTREAM_INDEX_MAX_ROWS and EVALSTREAM_INDEX_MAX_AGE_MS', () => {
    expect(indexLimitsFromEnv({ EVALSTREAM_INDEX_MAX_ROWS: '10', EVALSTREAM_INDEX_MAX_AGE_MS: '60000' })).toEqual({
      ok: true,
      value: { maxRows: 10, maxAgeMs: 60_000 },
    })
    expect(indexLimitsFromEnv({ EVALSTREAM_INDEX_MAX_ROWS: '0' })).toEqual({
      ok: false,
      error: "EVALSTREAM_INDEX_MAX_ROWS must be a whole number >= 1, not '0'",
    })
  })

  it('a session rebuilt by replay after a restart, and a repeated delivery, count nothing twice', async () => {
    const db = new DatabaseSync(':memory:')
    const first = indexedHost({}, { db, ...stopped })
    await first.run('replayed', { end: false })
    const window = `/v1/stats?since=${T - 3_600_000}&until=${T + 3_600_000}`
    const before = await first.json(window)
    expect(before.criteria.length).toBeGreaterThanOrEqual(2)
    expect(before.criteria.every((c: any) => c.total === 1)).toBe(true)
    // A restart: a new host over the same database replays the session's journal on first use.
    const second = indexedHost({}, { db, ...stopped })
    expect((await second.call('GET', '/v1/sessions/replayed')).status).toBe(200)
    expect(await second.json(window)).toEqual(before)
    // A delivery that arrives twice (a Worker's retried POST to its index) is recognised.
    const [row] = (await second.json('/v1/results?type=criterion.result&limit=1')).results
    const again = {
      sessionId: row.session_id,
      appName: row.app,
      atMs: row.at_ms,
      event: { seq: row.seq, type: row.type, key: 'k', data: row.data },
    }
    expect(second.index.record(again)).toBe(false)
    expect(second.index.recordAll([again, { ...again, event: { ...again.event, seq: 999 } }, again])).toBe(1)
    const after = await second.json(window)
    expect(after.criteria.map((c: any) => c.total)).toEqual(
      before.criteria.map((c: any) => (c.criterion === row.criterion ? c.total + 1 : c.total)),
    )
  })
})

/**
 * Monitoring across sessions on Workers (workerd via Miniflare, real sockets): session objects send
 * their results to one of their tenant's index shards; /v1/results, /v1/stats and /v1/sessions
 * read the shards as one index (pages and cursors included), each tenant its own; a session's
 * conversation comes from its object; a session object evicted and rebuilt by replay adds nothing;
 * the dashboard page is served without a token.
 * Covers: worker/index-shards.ts, worker/index-object.ts, worker/index-feed.ts, src/http/dashboard/routes.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACME_TOKEN, GLOBEX_TOKEN, TOKENS_ENV } from '../../support/auth-suite.ts'
import { CONFIG, DIVERGING_CASE, MATCHING_CASE, WEATHER_SSE } from '../../support/weather-fixtures.ts'
import { NO_JUDGE_ENV } from '../../support/runtimes.ts'
import { bundleWorker, servingBundle } from '../../support/worker-build.ts'
import { DASHBOARD_JS } from '../../../src/http/dashboard/bundle.generated.ts'
import { DEFAULT_INDEX_SHARDS } from '../../../src/config/worker-shards.ts'
import { shardOf } from '../../../worker/shards.ts'

/** The deployment's default: every test here reads a tenant spread over several index objects. */
const INDEX_SHARDS = DEFAULT_INDEX_SHARDS

const acme = { authorization: `Bearer ${ACME_TOKEN}` }
const globex = { authorization: `Bearer ${GLOBEX_TOKEN}` }
const TRAJECTORY = 'tool_trajectory_avg_score'

/** Polls until `check` holds: the index is fed asynchronously, after the session's answer. */
async function until<T>(read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await read()
    if (check(v)) return v
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error('the index never caught up')
}

describe('results index on Workers (workerd via Miniflare)', () => {
  let mf: Miniflare
  let base: string
  const call = (path: string, init?: RequestInit) => fetch(new URL(path, base).href, init)
  const json = async (path: string, headers: Record<string, string>): Promise<any> => (await call(path, { headers })).json()
  const run = async (id: string, headers: Record<string, string>, evalCase: unknown) => {
    const body = JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: evalCase })
    expect((await call('/v1/sessions', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })).status).toBe(
      201,
    )
    const up = await call(`/v1/sessions/${id}/events`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/event-stream' },
      body: WEATHER_SSE,
    })
    await up.text()
    expect((await call(`/v1/sessions/${id}/end`, { method: 'POST', headers })).status).toBe(200)
  }

  const temps: string[] = []
  beforeAll(async () => {
    const scriptPath = await bundleWorker()
    const storage = mkdtempSync(join(tmpdir(), 'evalstream-index-do-'))
    temps.push(dirname(scriptPath), storage)
    mf = new Miniflare({
      ...servingBundle(scriptPath),
      durableObjects: { SESSIONS: { className: 'EvalSession', useSQLite: true }, INDEX: { className: 'EvalIndex', useSQLite: true } },
      durableObjectsPersist: storage,
      bindings: { ...NO_JUDGE_ENV, EVALSTREAM_TEST_HOOKS: '1', EVALSTREAM_TOKENS: TOKENS_ENV },
    })
    base = (await mf.ready).origin
  })
  afterAll(async () => {
    await mf?.dispose()
    for (const dir of temps) rmSync(dir, { recursive: true, force: true })
  })

  it('indexes each tenant apart: results, stats and sessions', async () => {
    await run('acme:good', acme, MATCHING_CASE)
    await run('acme:bad', acme, DIVERGING_CASE)
    await run('globex:one', globex, MATCHING_CASE)
    const acmeCases = await until(
      () => json('/v1/results?type=case.result', acme),
      (r) => r.results.length === 2,
    )
    expect(acmeCases.tenant).toBe('acme')
    expect(acmeCases.results.map((r: any) => [r.session_id, r.status])).toEqual([
      ['acme:bad', 'FAILED'],
      ['acme:good', 'PASSED'],
    ])
    await until(() => json('/v1/results?type=case.result', globex), (r) => r.results.length === 1)
    const stats = await json('/v1/stats', acme)
    expect(stats.criteria.find((c: any) => c.criterion === TRAJECTORY).counts).toEqual({
      PASSED: 1,
      FAILED: 1,
      NOT_EVALUATED: 0,
      INFORMATIONAL: 0,
    })
    const globexStats = await json('/v1/stats', globex)
    expect(globexStats.criteria.find((c: any) => c.criterion === TRAJECTORY).counts).toEqual({
      PASSED: 1,
      FAILED: 0,
      NOT_EVALUATED: 0,
      INFORMATIONAL: 0,
    })
    expect((await json('/v1/sessions', globex)).sessions.map((s: any) => s.session_id)).toEqual(['globex:one'])
    const talk = await json('/v1/sessions/acme:good/conversation', acme)
    expect(talk.entries.flatMap((e: any) => e.parts.map((p: any) => p.name ?? p.text))).toContain('get_weather')
    expect((await call('/v1/sessions/acme:good/conversation', { headers: globex })).status).toBe(404)
    expect((await call('/v1/results?tenant=acme', { headers: globex })).status).toBe(403)
    expect((await call('/v1/stats')).status).toBe(401)
    // Only session objects write to an index: the router never forwards its record path.
    const forged = JSON.stringify([{
      sessionId: 'acme:forged',
      tenant: 'acme',
      atMs: Date.now(),
      event: { seq: 1, type: 'case.result', key: 'case', data: {} },
    }])
    const write = await call('/__index/record', { method: 'POST', headers: { ...acme, 'content-type': 'application/json' }, body: forged })
    expect(write.status).toBe(404)
    expect((await json('/v1/results?session=acme:forged', acme)).results).toEqual([])
  })

  it('a session object rebuilt by replay after an eviction indexes nothing twice', async () => {
    await run('acme:replayed', acme, MATCHING_CASE)
    const mine = () => json('/v1/results?session=acme:replayed', acme)
    const before = await until(mine, (r) => r.results.some((x: any) => x.type === 'case.result'))
    await call('/v1/sessions/acme:replayed/__evict', { method: 'POST', headers: acme }).catch(() => undefined)
    expect((await call('/v1/sessions/acme:replayed', { headers: acme })).status).toBe(200)
    // Another session's results arriving afterwards show the index is still being fed.
    await run('acme:after', acme, MATCHING_CASE)
    await until(() => json('/v1/results?session=acme:after&type=case.result', acme), (r) => r.results.length === 1)
    expect((await mine()).results).toEqual(before.results)
  })

  it("reads a tenant's index shards as one index: pages, stats and sessions", async () => {
    const sessions = ['acme:good', 'acme:bad', 'acme:replayed', 'acme:after']
    // The premise: this tenant's sessions are spread over several of its INDEX_SHARDS objects.
    expect(new Set(sessions.map((id) => shardOf(id, INDEX_SHARDS))).size).toBeGreaterThan(1)
    const all = (await json('/v1/results?limit=1000', acme)).results
    expect(new Set(all.map((r: any) => r.session_id))).toEqual(new Set(sessions))
    // Page by page, following next_cursor: the same results in the same order, none twice.
    const paged: any[] = []
    let cursor: string | null = ''
    while (cursor !== null) {
      const page: any = await json(`/v1/results?limit=3${cursor ? `&cursor=${cursor}` : ''}`, acme)
      expect(page.results.length).toBeLessThanOrEqual(3)
      paged.push(...page.results)
      cursor = page.next_cursor
    }
    expect(paged.map((r) => r.id)).toEqual(all.map((r: any) => r.id))
    expect(new Set(paged.map((r) => r.id)).size).toBe(paged.length)
    expect((await call('/v1/results?cursor=12', { headers: acme })).status).toBe(400)

    // Stats summed over the shards count what the results list holds.
    const rows = all.filter((r: any) => r.type === 'criterion.result' && r.criterion === TRAJECTORY && r.current)
    const trajectory = (await json('/v1/stats', acme)).criteria.find((c: any) => c.criterion === TRAJECTORY)
    expect(trajectory.total).toBe(rows.length)
    expect(trajectory.over_time.reduce((n: number, t: any) => n + t.total, 0)).toBe(rows.length)
    const mean = rows.reduce((n: number, r: any) => n + r.score, 0) / rows.length
    expect(trajectory.mean_score).toBeCloseTo(mean, 9)

    const listed = (await json('/v1/sessions', acme)).sessions
    expect(listed.map((s: any) => s.session_id).sort()).toEqual([...sessions].sort())
    const times = listed.map((s: any) => Date.parse(s.last_at))
    expect(times).toEqual([...times].sort((a, b) => b - a))
  })

  it('serves the dashboard without a token, with a strict CSP', async () => {
    const page = await call('/')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(await page.text()).toContain('<script type="module" src="/dashboard/main.js">')
    const script = await call('/dashboard/main.js')
    expect(script.headers.get('content-type')).toContain('text/javascript')
    // The committed bundle of src/http/dashboard/browser, byte for byte, as on Node and Deno.
    expect(await script.text()).toBe(DASHBOARD_JS)
    expect((await call('/dashboard/nope.js')).status).toBe(401)
  })
})

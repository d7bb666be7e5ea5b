/**
 * Monitoring across sessions on Workers (workerd via Miniflare, real sockets): session objects send
 * their results to their tenant's index object; /v1/results, /v1/stats and /v1/sessions answer
 * from it, each tenant from its own; a session's conversation comes from its object; a session object evicted and rebuilt by replay adds nothing;
 * the dashboard page is served without a token.
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

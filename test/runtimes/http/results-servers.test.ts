/**
 * The real Node and Deno servers (spawned, EVALSTREAM_DB=:memory:) serve the dashboard and keep a
 * results index within EVALSTREAM_INDEX_MAX_ROWS; a bad limit stops the start with its name.
 * Covers: src/adapter/node/server.ts, src/adapter/deno/server.ts, src/monitor/results-index.ts, src/config/results-index.ts, src/http/dashboard/routes.ts.
 */
import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONFIG, MATCHING_CASE, WEATHER_SSE } from '../../support/weather-fixtures.ts'
import { type Running, SPAWNED_SERVER_ENV, startDeno } from '../../support/runtimes.ts'
import { spawnServer } from '../../support/server-process.ts'
import { DASHBOARD_JS } from '../../../src/http/dashboard/bundle.generated.ts'

const LIMIT_ENV = { EVALSTREAM_INDEX_MAX_ROWS: '8' }

async function startNodeServer(env: Record<string, string>): Promise<Running> {
  // The start-up notes follow the listening line; the index's note names its limit.
  const server = await spawnServer('node', { env, waitFor: ['results index: at most'] })
  expect(server.output()).toMatch(/results index: at most 8 results/)
  return { baseUrl: server.baseUrl, stop: () => server.stop() }
}

for (
  const [name, start] of [
    ['Node', startNodeServer],
    ['Deno', startDeno],
  ] as const
) {
  describe(`dashboard and results index on ${name}`, () => {
    let server: Running
    const call = (path: string, init?: RequestInit) => fetch(new URL(path, server.baseUrl).href, init)
    beforeAll(async () => {
      server = await start(LIMIT_ENV)
    })
    afterAll(() => server?.stop())

    it('serves the page and indexes results within EVALSTREAM_INDEX_MAX_ROWS', async () => {
      const page = await call('/')
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('/dashboard/main.js')
      // The page script is the committed bundle of src/http/dashboard/browser, byte for byte.
      expect(await (await call('/dashboard/main.js')).text()).toBe(DASHBOARD_JS)
      for (const id of ['one', 'two']) {
        const body = JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE })
        expect((await call('/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(201)
        await (await call(`/v1/sessions/${id}/events`, {
          method: 'POST',
          headers: { 'content-type': 'text/event-stream' },
          body: WEATHER_SSE,
        })).text()
        expect((await call(`/v1/sessions/${id}/end`, { method: 'POST' })).status).toBe(200)
      }
      const results = (await (await call('/v1/results')).json()) as any
      // Seven results a session (two criteria, ADK's four efficiency metrics, the case): all of
      // 'two' and the newest of 'one', its case result.
      expect(results.results.map((r: any) => [r.session_id, r.type])).toEqual([
        ['two', 'case.result'],
        ...Array.from({ length: 6 }, () => ['two', 'criterion.result']),
        ['one', 'case.result'],
      ])
      const stats = (await (await call('/v1/stats')).json()) as any
      expect(stats.limits.maxRows).toBe(8)
      expect(stats.criteria.filter((c: any) => !c.counts.INFORMATIONAL).map((c: any) => [c.criterion, c.counts.PASSED])).toEqual([
        ['response_match_score', 1],
        ['tool_trajectory_avg_score', 1],
      ])
    })
  })
}

describe('a bad index limit', () => {
  it('stops the Node server at start, naming the variable', () => {
    const run = spawnSync('node_modules/.bin/node', ['src/adapter/node/server.ts'], {
      env: { ...process.env, ...SPAWNED_SERVER_ENV, EVALSTREAM_INDEX_MAX_AGE_MS: 'soon', PORT: '0' },
      encoding: 'utf8',
      timeout: 240_000,
    })
    expect(run.status).toBe(2)
    expect(run.stderr).toContain("EVALSTREAM_INDEX_MAX_AGE_MS must be a whole number >= 1, not 'soon'")
  })
})

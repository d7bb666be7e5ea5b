/**
 * The real Node and Deno servers (spawned, EVALSTREAM_DB=:memory:) serve the dashboard and keep a
 * results index within EVALSTREAM_INDEX_MAX_ROWS; a bad limit stops the start with its name.
 */
import { spawn, spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONFIG, MATCHING_CASE, WEATHER_SSE } from './fixtures.ts'
import { freePort, SPAWNED_SERVER_ENV, startDeno, type Running } from '../support/runtimes.ts'

const LIMIT_ENV = { EVALSTREAM_INDEX_MAX_ROWS: '8' }

async function startNodeServer(env: Record<string, string>): Promise<Running> {
  const port = await freePort()
  const child = spawn('node_modules/.bin/node', ['src/adapter/node/server.ts'], {
    env: { ...process.env, ...SPAWNED_SERVER_ENV, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      // The start-up notes follow the listening line; the index's note names its limit.
      if (output.includes('results index: at most')) resolve()
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => reject(new Error(`node exited with ${code}:\n${output}`)))
  })
  expect(output).toMatch(/results index: at most 8 results/)
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', () => r()), child.kill('SIGTERM')))),
  }
}

for (const [name, start] of [
  ['Node', startNodeServer],
  ['Deno', startDeno],
] as const) {
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
      for (const id of ['one', 'two']) {
        const body = JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE })
        expect((await call('/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(201)
        await (await call(`/v1/sessions/${id}/events`, { method: 'POST', headers: { 'content-type': 'text/event-stream' }, body: WEATHER_SSE })).text()
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
      timeout: 30_000,
    })
    expect(run.status).toBe(2)
    expect(run.stderr).toContain("EVALSTREAM_INDEX_MAX_AGE_MS must be a whole number >= 1, not 'soon'")
  })
})

/**
 * The same store contract (store-contract.ts) on the other two runtimes: under Deno over its
 * node:sqlite, and inside a Durable Object in workerd (Miniflare) over ctx.storage.sql.
 * Covers: src/session/store.ts, src/session/sqlite/records.ts, worker/durable-store.ts.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import { describe, expect, it } from 'vitest'
import { COMPATIBILITY_DATE, WORKERD_BUILD } from '../../support/worker-build.ts'
import { CONFIG, MATCHING_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { STORE_CONTRACT } from '../../support/store-contract.ts'

type Outcome = { name: string; error?: string }

/** Every case ran and none failed (a failure shows its stack). */
function expectAllPassed(outcomes: Outcome[]): void {
  expect(outcomes.map((o) => o.name)).toEqual(STORE_CONTRACT.map((c) => c.name))
  expect(outcomes.filter((o) => o.error)).toEqual([])
}

describe('session store contract on Deno and workerd', () => {
  it('Deno: memory and node:sqlite', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalstream-deno-contract-'))
    const run = spawnSync(
      'node_modules/.bin/deno',
      ['run', '--allow-read', `--allow-write=${dir}`, 'test/runtimes/session/store-contract.deno.ts', dir],
      { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 },
    )
    expect(run.status, run.stderr).toBe(0)
    const outcomes = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, Outcome[]>
    expectAllPassed(outcomes.memory!)
    expectAllPassed(outcomes.sqlite!)
  }, 120_000)

  it('Durable Object: ctx.storage.sql', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'evalstream-contract-worker-'))
    const scriptPath = join(outdir, 'index.js')
    await build({ ...WORKERD_BUILD, entryPoints: ['test/runtimes/worker/store-contract.worker.ts'], outfile: scriptPath })
    const mf = new Miniflare({
      modules: true,
      scriptPath,
      modulesRoot: dirname(scriptPath),
      compatibilityDate: COMPATIBILITY_DATE,
      // node:assert for the contract's assertions.
      compatibilityFlags: ['nodejs_compat'],
      durableObjects: { CONTRACT: { className: 'ContractObject', useSQLite: true } },
    })
    try {
      const response = await mf.dispatchFetch('http://contract/', {
        method: 'POST',
        body: JSON.stringify({ events: WEATHER_EVENTS, config: CONFIG, evalCase: MATCHING_CASE }),
      })
      expectAllPassed((await response.json()) as Outcome[])
    } finally {
      await mf.dispose()
      rmSync(outdir, { recursive: true, force: true })
    }
  }, 120_000)
})

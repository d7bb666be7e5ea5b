/**
 * EVALSTREAM_DB wiring: the adapter's database (src/adapter/sqlite-db.ts) gives the app an eval set
 * store in the same SQLite file as the sessions, so eval sets made in the Eval tab survive a
 * restart of the server; `:memory:` keeps them in memory.
 * Covers: src/adapter/sqlite-db.ts, src/config/setup.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MEMORY_DB, openSessionDb } from '../../../../src/adapter/sqlite-db.ts'
import { depsFromEnv } from '../../../../src/config/setup.ts'
import { createApp } from '../../../../src/http/app.ts'
import { NO_JUDGE_ENV } from '../../../support/no-judge-env.ts'

const dir = mkdtempSync(join(tmpdir(), 'evalstream-evaldb-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A server's app over EVALSTREAM_DB=path, as src/adapter/node/server.ts builds it. */
function server(path: string) {
  const db = openSessionDb(path)
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, AGENT_URL: 'http://127.0.0.1:9' }, {
    store: db.store,
    judgeCache: db.judgeCache,
    evalSets: db.evalSets,
  })
  if (!setup.ok) throw new Error(setup.error)
  return { app: createApp(setup.deps), close: () => db.close() }
}

describe('eval sets with EVALSTREAM_DB', () => {
  it('a file keeps them across a restart', async () => {
    const path = join(dir, 'evalstream.db')
    const first = server(path)
    expect((await first.app.request('/dev/apps/weather_agent/eval_sets/kept', { method: 'POST' })).status).toBe(200)
    first.close()
    const second = server(path)
    expect(await (await second.app.request('/dev/apps/weather_agent/eval_sets')).json()).toEqual(['kept'])
    second.close()
  })

  it(':memory: keeps them in the process only', async () => {
    const first = server(MEMORY_DB)
    await first.app.request('/dev/apps/weather_agent/eval_sets/gone', { method: 'POST' })
    expect(await (await first.app.request('/dev/apps/weather_agent/eval_sets')).json()).toEqual(['gone'])
    first.close()
    const second = server(MEMORY_DB)
    expect(await (await second.app.request('/dev/apps/weather_agent/eval_sets')).json()).toEqual([])
    second.close()
  })
})

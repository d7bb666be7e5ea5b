/**
 * An in-process host with a results index, as the Node server builds it: setup from env, the store
 * publishing to the feed, the index on node:sqlite (in memory unless a database is passed).
 */
import { DatabaseSync } from 'node:sqlite'
import { expect } from 'vitest'
import { createApp } from '../../src/http/app.ts'
import { type ResultsIndexOptions, sqliteResultsIndex } from '../../src/monitor/results-index.ts'
import { sqlTransaction, watchResults } from '../../src/config/results-index.ts'
import { memorySessionStore, sqliteSessionStore } from '../../src/session/store.ts'
import { depsFromEnv, type Env } from '../../src/config/setup.ts'
import { type Sql, sqlFromDatabaseSync } from '../../src/session/sql.ts'
import { CONFIG, WEATHER_SSE, weatherCase } from './weather-fixtures.ts'
import { NO_JUDGE_ENV } from './no-judge-env.ts'

export type Host = ReturnType<typeof indexedHost>

/**
 * `db`: sessions and index in this SQLite database (a restart is a second host over it).
 * `now`: one clock for the session store (which stamps each result), the index and the routes.
 */
export function indexedHost(env: Env = {}, options: ResultsIndexOptions & { db?: DatabaseSync } = {}) {
  const sql: Sql = sqlFromDatabaseSync(options.db ?? new DatabaseSync(':memory:'))
  const now = options.now
  const setup = depsFromEnv(
    { ...NO_JUDGE_ENV, ...env },
    { store: (limits, feed) => (options.db ? sqliteSessionStore(sql, { limits, feed, now }) : memorySessionStore({ limits, feed, now })) },
  )
  if (!setup.ok) throw new Error(setup.error)
  const index = sqliteResultsIndex(sql, { transaction: sqlTransaction(sql), ...options })
  watchResults(setup.deps.feed!, index)
  const app = createApp({ ...setup.deps, resultsIndex: index })
  const call = (method: string, path: string, token?: string, body?: string, type = 'application/json') =>
    app.request(path, {
      method,
      headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body }),
    })
  const json = async (path: string, token?: string): Promise<any> => {
    const res = await call('GET', path, token)
    expect(res.status, await res.clone().text()).toBe(200)
    return res.json()
  }
  /** A session that runs the weather conversation against `tools` (the expected trajectory) and ends. */
  const run = async (id: string, opts: { tools?: string[]; app?: string; token?: string; end?: boolean } = {}) => {
    const tools = (opts.tools ?? ['get_weather', 'get_time']).map((name) => ({ name, args: { city: 'Paris' } }))
    const evalCase = { ...weatherCase(tools), session_input: { app_name: opts.app ?? 'weather', user_id: 'u1', state: {} } }
    const created = await call(
      'POST',
      '/v1/sessions',
      opts.token,
      JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: evalCase }),
    )
    expect(created.status, await created.clone().text()).toBe(201)
    const uploaded = await call('POST', `/v1/sessions/${encodeURIComponent(id)}/events`, opts.token, WEATHER_SSE, 'text/event-stream')
    expect(uploaded.status).toBeLessThan(300)
    await uploaded.text()
    if (opts.end !== false) expect((await call('POST', `/v1/sessions/${encodeURIComponent(id)}/end`, opts.token)).status).toBe(200)
  }
  return { app, index, call, json, run, store: setup.deps.store, feed: setup.deps.feed! }
}

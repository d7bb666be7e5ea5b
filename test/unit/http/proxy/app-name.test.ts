/**
 * A session the proxy creates for a /run_sse conversation is named by the ADK app the request is
 * for (its `appName`), so the session list and the stats show and filter it by app; an app name
 * the session id's characters cannot carry is left out, and the run is scored all the same.
 * Covers: src/http/proxy/proxy.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../../src/http/app.ts'
import { sqlTransaction, watchResults } from '../../../../src/config/results-index.ts'
import { depsFromEnv } from '../../../../src/config/setup.ts'
import { sqliteResultsIndex } from '../../../../src/monitor/results-index.ts'
import { sqlFromDatabaseSync } from '../../../../src/session/sql.ts'
import { memorySessionStore } from '../../../../src/session/store.ts'
import { NO_JUDGE_ENV } from '../../../support/no-judge-env.ts'
import { WEATHER_SSE } from '../../../support/weather-fixtures.ts'

function proxyHost() {
  const sql = sqlFromDatabaseSync(new DatabaseSync(':memory:'))
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, AGENT_URL: 'http://agent.test' }, {
    store: (limits, feed) => memorySessionStore({ limits, feed }),
  })
  if (!setup.ok) throw new Error(setup.error)
  const index = sqliteResultsIndex(sql, { transaction: sqlTransaction(sql) })
  watchResults(setup.deps.feed!, index)
  const agent = (async () => new Response(WEATHER_SSE, { headers: { 'content-type': 'text/event-stream' } })) as typeof fetch
  const app = createApp({ ...setup.deps, fetch: agent, resultsIndex: index })
  const run = async (body: Record<string, unknown>) => {
    const res = await app.request('/run_sse', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(res.status).toBe(200)
    await res.text()
  }
  const sessions = async (query = '') =>
    (await (await app.request(`/v1/sessions${query}`)).json()).sessions as Array<Record<string, unknown>>
  return { run, sessions }
}

const message = { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] }

describe('proxied sessions named by app', () => {
  it("takes the app from the /run_sse request's appName", async () => {
    const host = proxyHost()
    await host.run({ appName: 'weather_agent', userId: 'u1', sessionId: 's-weather', newMessage: message })
    await host.run({ appName: 'travel_agent', userId: 'u1', sessionId: 's-travel', newMessage: message })
    const all = await host.sessions()
    expect(Object.fromEntries(all.map((s) => [s.session_id, s.app]))).toEqual({ 's-weather': 'weather_agent', 's-travel': 'travel_agent' })
    expect((await host.sessions('?app=travel_agent')).map((s) => s.session_id)).toEqual(['s-travel'])
  })

  it('leaves out an app name it could not store, and still scores the run', async () => {
    const host = proxyHost()
    await host.run({ appName: 'no spaces <here>', userId: 'u1', sessionId: 's-odd', newMessage: message })
    await host.run({ userId: 'u1', sessionId: 's-none', newMessage: message })
    const all = (await host.sessions()).sort((a, b) => String(a.session_id).localeCompare(String(b.session_id)))
    expect(all.map((s) => [s.session_id, s.app, (s.invocations as number) > 0])).toEqual([
      ['s-none', undefined, true],
      ['s-odd', undefined, true],
    ])
  })
})

/**
 * An evalstream app with the OTLP receiver, in process: fake clock, SQLite or memory sessions, the
 * weather fixtures' eval config and case configured for app `weather_agent`, and an OTLP log
 * collector stub catching the verdicts the OTel exporter writes back.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { createApp } from '../../../../src/http/app.ts'
import type { AppDeps } from '../../../../src/http/deps.ts'
import { depsFromEnv, type StoreSource } from '../../../../src/config/setup.ts'
import { memorySessionStore, sqliteSessionStore } from '../../../../src/session/store.ts'
import { sqlFromDatabaseSync } from '../../../../src/session/sql.ts'
import { FIXTURE_DIR } from './fixtures.ts'

export const WEATHER_CONFIG = JSON.parse(readFileSync(join(FIXTURE_DIR, 'weather.test_config.json'), 'utf8'))
export const WEATHER_CASE = JSON.parse(readFileSync(join(FIXTURE_DIR, 'weather.evalset.json'), 'utf8')).eval_cases[0]
export const OTLP_CONFIG = JSON.stringify({ apps: { weather_agent: { eval_config: WEATHER_CONFIG, eval_case: WEATHER_CASE } } })

export type Clock = { now: number }

/** Log records the OTel exporter posted, as OTLP/JSON. */
export type Collected = Array<Record<string, any>>

export function receiverApp(
  options: { env?: Record<string, string>; db?: DatabaseSync; clock?: Clock; metrics?: boolean; deps?: Partial<AppDeps> } = {},
) {
  const clock = options.clock ?? { now: 1_763_976_100_000 }
  const collected: Collected = []
  const collector = (async (_url: string, init: RequestInit) => {
    const body = JSON.parse(String(init.body))
    for (const rl of body.resourceLogs) for (const sl of rl.scopeLogs) collected.push(...sl.logRecords)
    return new Response('{}', { status: 200 })
  }) as typeof fetch
  const store: StoreSource = options.db
    ? (limits, feed) => sqliteSessionStore(sqlFromDatabaseSync(options.db!), { limits, feed, sweeper: 'manual', now: () => clock.now })
    : (limits, feed) => memorySessionStore({ limits, feed, sweeper: 'manual', now: () => clock.now })
  const setup = depsFromEnv(
    {
      GEMINI_API_KEY: '',
      GOOGLE_API_KEY: '',
      EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.test:4318',
      ...options.env,
    },
    {
      store,
      now: () => clock.now,
      exporters: { fetch: collector, otelBackoffMs: 1 },
      ...(options.db ? { otlpSql: sqlFromDatabaseSync(options.db) } : {}),
      ...(options.metrics ? { metrics: true } : {}),
    },
  )
  if (!setup.ok) throw new Error(setup.error)
  const deps = { ...setup.deps, ...options.deps }
  const app = createApp(deps)
  const post = (path: string, body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    app.request(path, { method: 'POST', body, headers })
  return { app, deps, clock, collected, post, monitor: setup.deps.otlp!.monitor }
}

/** Each line of a fixture file: one export request. */
export function fixtureRequests(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '')
}

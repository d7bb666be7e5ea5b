/**
 * Sessions are capped per tenant as well as per process: a tenant's creates evict only its own
 * least recently active sessions, and when the process is full of other tenants' sessions the
 * create is refused (503) rather than evicting them. An evicted session's 410 (when and why) is
 * told only to its own tenant; anyone else gets the plain 404. Memory and SQLite stores alike.
 * Covers: src/session/store.ts, src/session/records.ts, src/session/sqlite/records.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { memorySessionStore, sqliteSessionStore } from '../../../src/session/store.ts'
import type { StoreSource } from '../../../src/config/setup.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'
import { type Tenant, twoTenantApp } from '../support/two-tenants.ts'

const stores: Record<string, () => StoreSource> = {
  memory: () => (limits) => memorySessionStore({ limits, sweeper: 'manual' }),
  'node:sqlite': () => (limits) => sqliteSessionStore(sqlFromDatabaseSync(new DatabaseSync(':memory:')), { limits, sweeper: 'manual' }),
}

describe.each(Object.keys(stores))('per-tenant session quota (%s store)', (kind) => {
  const setup = (env: Record<string, string>) => {
    const { call } = twoTenantApp(env, { store: stores[kind]!() })
    const create = async (tenant: Tenant, id: string) => call(tenant, 'POST', '/v1/sessions', { session_id: id, eval_config: CONFIG })
    return { call, create }
  }

  it("a tenant's creates past its quota evict only its own sessions, never another tenant's", async () => {
    const { call, create } = setup({ EVALSTREAM_MAX_SESSIONS: '4', EVALSTREAM_MAX_SESSIONS_PER_TENANT: '2' })
    expect((await create('acme', 'a1')).status).toBe(201)
    for (const id of ['g1', 'g2', 'g3', 'g4', 'g5']) expect((await create('globex', id)).status).toBe(201)
    expect((await call('acme', 'GET', '/v1/sessions/a1')).status).toBe(200)
    expect((await call('globex', 'GET', '/v1/sessions/g4')).status).toBe(200)
    expect((await call('globex', 'GET', '/v1/sessions/g5')).status).toBe(200)
    const gone = await call('globex', 'GET', '/v1/sessions/g1')
    expect(gone.status).toBe(410)
    expect(((await gone.json()) as { detail: string }).detail).toMatch(/at most 2 of one tenant \(EVALSTREAM_MAX_SESSIONS_PER_TENANT\)/)
  })

  it('a process full of one tenant refuses the other tenant (503) instead of evicting for it', async () => {
    const { call, create } = setup({ EVALSTREAM_MAX_SESSIONS: '3', EVALSTREAM_MAX_SESSIONS_PER_TENANT: '3' })
    for (const id of ['a1', 'a2', 'a3']) expect((await create('acme', id)).status).toBe(201)
    const refused = await create('globex', 'g1')
    expect(refused.status).toBe(503)
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/EVALSTREAM_MAX_SESSIONS/)
    for (const id of ['a1', 'a2', 'a3']) expect((await call('acme', 'GET', `/v1/sessions/${id}`)).status).toBe(200)
    // The full tenant itself still gets in, at the cost of its own oldest session.
    expect((await create('acme', 'a4')).status).toBe(201)
    expect((await call('acme', 'GET', '/v1/sessions/a1')).status).toBe(410)
  })

  it("tells only the session's own tenant that it was evicted; another tenant gets the same 404 as for an unknown id", async () => {
    const { call, create } = setup({ EVALSTREAM_MAX_SESSIONS_PER_TENANT: '1' })
    expect((await create('acme', 'shared-name')).status).toBe(201)
    expect((await create('acme', 'next')).status).toBe(201)
    const own = await call('acme', 'GET', '/v1/sessions/shared-name')
    expect(own.status).toBe(410)
    for (const path of ['/v1/sessions/shared-name', '/v1/sessions/shared-name/conversation']) {
      const other = await call('globex', 'GET', path)
      expect(other.status).toBe(404)
      const text = await other.text()
      expect(text).not.toMatch(/evicted|EVALSTREAM_/)
    }
  })
})

describe('a SQLite database written before tenants were tracked', () => {
  it('gets the tenant index and the notice column on its first write, and keeps working', async () => {
    const db = new DatabaseSync(':memory:')
    db.exec('CREATE TABLE es_sessions (id TEXT PRIMARY KEY, spec TEXT NOT NULL, touched_ms INTEGER NOT NULL, ended_ms INTEGER)')
    db.exec('CREATE TABLE es_gone (id TEXT PRIMARY KEY, reason TEXT NOT NULL, at_ms INTEGER NOT NULL)')
    db.exec('CREATE TABLE es_journal (session_id TEXT NOT NULL, n INTEGER NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (session_id, n))')
    db.exec(
      'CREATE TABLE es_results (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session_id, seq))',
    )
    db.prepare('INSERT INTO es_sessions (id, spec, touched_ms) VALUES (?, ?, ?)').run(
      'old',
      JSON.stringify({ session_id: 'old', tenant: 'acme' }),
      0,
    )
    const { call } = twoTenantApp(
      { EVALSTREAM_MAX_SESSIONS_PER_TENANT: '1' },
      { store: (limits) => sqliteSessionStore(sqlFromDatabaseSync(db), { limits, sweeper: 'manual' }) },
    )
    const created = await call('acme', 'POST', '/v1/sessions', { session_id: 'new', eval_config: CONFIG })
    expect(created.status).toBe(201)
    expect((await call('acme', 'GET', '/v1/sessions/old')).status).toBe(410)
    expect((await call('globex', 'GET', '/v1/sessions/old')).status).toBe(404)
    const columns = db.prepare("SELECT name FROM pragma_table_info('es_gone')").all().map((r) => r.name)
    expect(columns).toContain('tenant')
  })
})

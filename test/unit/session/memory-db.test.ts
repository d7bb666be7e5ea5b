/**
 * EVALSTREAM_DB=:memory: is SQLite in memory (src/adapter/sqlite-db.ts): sessions keep their events
 * and results as rows, let a completed invocation's events go and read them back, as a file does.
 * Those rows are still this process's memory, so the process byte budget is charged what the
 * memory store was charged, and short of memory an ended session is evicted (410 saying why), not
 * unloaded to be rebuilt from rows that would cost the same memory.
 * Covers: src/adapter/sqlite-db.ts, src/session/store.ts, src/session/byte-budget.ts.
 */
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { openSessionDb } from '../../../src/adapter/sqlite-db.ts'
import { memorySessionStore, type SessionStore } from '../../../src/session/store.ts'
import { depsFromEnv, type Env } from '../../../src/config/setup.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { jsonRequest } from '../../support/json-request.ts'

const textEvent = (inv: string, chars: number, n = 0) => ({
  author: 'agent',
  invocationId: inv,
  content: { role: 'model', parts: [{ text: `${n}:`.padEnd(chars, 'x') }] },
})

function app(env: Env, kind: 'memory store' | ':memory: database') {
  const db = kind === ':memory: database' ? openSessionDb(':memory:') : undefined
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...env }, { store: db ? db.store : (limits) => memorySessionStore({ limits }) })
  if (!setup.ok) throw new Error(setup.error)
  const a = createApp(setup.deps)
  const call = (method: string, path: string, body?: unknown) => a.fetch(jsonRequest(method, path, body))
  const create = (id: string) => call('POST', '/v1/sessions', { session_id: id, eval_config: CONFIG })
  const store = setup.deps.store as SessionStore
  return { call, create, held: () => store.stats!().heldBytes!, store, close: () => db?.close() }
}

describe('EVALSTREAM_DB=:memory:', () => {
  it('charges the process budget what the memory store charges, and answers the same', async () => {
    const hosts = [app({}, 'memory store'), app({}, ':memory: database')]
    const answers = []
    for (const { create, call } of hosts) {
      expect((await create('s')).status).toBe(201)
      const events = Array.from({ length: 4 }, (_, n) => textEvent(`i${n}`, 10_000, n))
      expect((await call('POST', '/v1/sessions/s/events', events)).status).toBe(202)
      answers.push(await (await call('GET', '/v1/sessions/s')).json())
    }
    expect(hosts[1]!.held()).toBe(hosts[0]!.held())
    expect(hosts[1]!.held()).toBeGreaterThan(4 * 10_000)
    expect(answers[1]).toEqual(answers[0])
    for (const h of hosts) expect((await h.call('DELETE', '/v1/sessions/s')).status).toBe(204)
    expect(hosts[1]!.held()).toBe(0)
    hosts[1]!.close()
  })

  it('short of memory, an ended session is evicted with the reason, not unloaded', async () => {
    const { call, create, store, close } = app(
      { EVALSTREAM_MAX_PROCESS_BYTES: '1000000', EVALSTREAM_MAX_SESSION_BYTES: '10000000' },
      ':memory: database',
    )
    expect((await create('a')).status).toBe(201)
    const a = Array.from({ length: 8 }, (_, n) => textEvent(`a${n}`, 100_000, n))
    expect((await call('POST', '/v1/sessions/a/events', a)).status).toBe(202)
    expect((await create('b')).status).toBe(201)
    expect((await call('POST', '/v1/sessions/b/events', [textEvent('b0', 100_000)])).status).toBe(503)
    expect((await call('POST', '/v1/sessions/a/end')).status).toBe(200)
    expect((await call('POST', '/v1/sessions/b/events', [textEvent('b0', 100_000)])).status).toBe(202)
    const gone = await call('GET', '/v1/sessions/a')
    expect(gone.status).toBe(410)
    expect(((await gone.json()) as { detail: string }).detail).toMatch(/EVALSTREAM_MAX_PROCESS_BYTES\); ended sessions go first/)
    expect(store.stats!()).toMatchObject({ evicted: { memory: 1 } })
    close()
  })
})

/**
 * The byte budgets through the HTTP app (in-process): an event past EVALSTREAM_MAX_SESSION_BYTES is
 * refused with 413 naming the limit and its index while the session stays usable; past
 * EVALSTREAM_MAX_PROCESS_BYTES events and new sessions get 503 with Retry-After, until memory is
 * freed; ended sessions give up their engine and are the first to go when memory is short. With
 * SQLite the process budget is charged what memory holds, the session's quota what it was given.
 */
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { DatabaseSync } from 'node:sqlite'
import { memorySessionStore, type SessionLimits, type SessionStore, sqliteSessionStore } from '../../../src/session/store.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { depsFromEnv, type Env } from '../../../src/config/setup.ts'
import { jsonBytes } from '../../../src/session/byte-budget.ts'
import { OPEN_SESSION_BYTES } from '../../../src/session/session-bytes.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { jsonRequest } from '../../support/json-request.ts'

/** One agent text event of about `chars` characters in invocation `inv`. */
const textEvent = (inv: string, chars: number, n = 0) => ({
  author: 'agent',
  invocationId: inv,
  content: { role: 'model', parts: [{ text: `${n}:`.padEnd(chars, 'x') }] },
})

function app(env: Env, durable = false) {
  const sql = sqlFromDatabaseSync(new DatabaseSync(':memory:'))
  const store = (limits: SessionLimits) => (durable ? sqliteSessionStore(sql, { limits }) : memorySessionStore({ limits }))
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...env }, { store })
  if (!setup.ok) throw new Error(setup.error)
  const a = createApp(setup.deps)
  const call = (method: string, path: string, body?: unknown) => a.fetch(jsonRequest(method, path, body))
  const create = (id: string) => call('POST', '/v1/sessions', { session_id: id, eval_config: CONFIG })
  const held = () => (setup.deps.store as SessionStore).stats!().heldBytes!
  return { call, create, held, store: setup.deps.store as SessionStore }
}

/** An agent text event whose budget size (jsonBytes) is `bytes`, rounded down. */
function eventOfBytes(inv: string, bytes: number, n: number) {
  const overhead = jsonBytes(textEvent(inv, 0, n)) - `${n}:`.length
  return textEvent(inv, Math.floor(bytes) - overhead, n)
}

type Problem = {
  status: number
  detail: string
  limit: { name: string; value: number }
  accepted: number
  rejected: { index: number; message: string }[]
}

describe('per-session byte budget (EVALSTREAM_MAX_SESSION_BYTES)', () => {
  it('refuses the event that would pass it with 413 naming the limit and its index; the session still ends', async () => {
    const { call, create } = app({ EVALSTREAM_MAX_SESSION_BYTES: '500000' })
    expect((await create('s')).status).toBe(201)
    const events = Array.from({ length: 8 }, (_, n) => textEvent(`i${n}`, 100_000, n))
    const refused = await call('POST', '/v1/sessions/s/events', events)
    expect(refused.status).toBe(413)
    const problem = (await refused.json()) as Problem
    expect(problem.limit).toEqual({ name: 'EVALSTREAM_MAX_SESSION_BYTES', value: 500_000 })
    // 64 KiB of session overhead, then events of ~100 KB and their results: the fifth no longer fits.
    expect(problem.accepted).toBe(4)
    expect(problem.rejected).toEqual([{ index: 4, message: expect.stringContaining('event 4') }])
    expect(problem.detail).toMatch(/event 4 .*EVALSTREAM_MAX_SESSION_BYTES=500000/)

    // Smaller events still fit; the refusal is in the session's results as an `error`.
    expect((await call('POST', '/v1/sessions/s/events', [textEvent('i9', 100)])).status).toBe(202)
    const ended = await call('POST', '/v1/sessions/s/end')
    expect(ended.status).toBe(200)
    const snapshot = (await (await call('GET', '/v1/sessions/s')).json()) as { invocations: unknown[] }
    expect(snapshot.invocations).toHaveLength(5)
  })
})

describe('per-process byte budget (EVALSTREAM_MAX_PROCESS_BYTES)', () => {
  it('answers 503 with Retry-After past it, and an ended session is the first to go', async () => {
    const { call, create, held } = app({ EVALSTREAM_MAX_PROCESS_BYTES: '1000000', EVALSTREAM_MAX_SESSION_BYTES: '10000000' })
    expect((await create('a')).status).toBe(201)
    const a = Array.from({ length: 8 }, (_, n) => textEvent(`a${n}`, 100_000, n))
    expect((await call('POST', '/v1/sessions/a/events', a)).status).toBe(202)
    expect((await create('b')).status).toBe(201)

    const full = await call('POST', '/v1/sessions/b/events', [textEvent('b0', 100_000)])
    expect(full.status).toBe(503)
    expect(full.headers.get('retry-after')).toBe('10')
    const problem = (await full.json()) as Problem
    expect(problem.limit).toEqual({ name: 'EVALSTREAM_MAX_PROCESS_BYTES', value: 1_000_000 })
    expect(problem.detail).toMatch(/event 0 of session 'b' refused/)
    expect((await call('GET', '/healthz')).status).toBe(200)

    // New sessions are refused the same way while the open ones hold everything.
    const c = await create('c')
    expect(c.status).toBe(503)
    expect(c.headers.get('retry-after')).toBe('10')

    // Once `a` has ended it is the first to go: b's event is taken, and `a` answers 410 saying why.
    expect((await call('POST', '/v1/sessions/a/end')).status).toBe(200)
    expect((await call('POST', '/v1/sessions/b/events', [textEvent('b0', 100_000)])).status).toBe(202)
    const gone = await call('GET', '/v1/sessions/a')
    expect(gone.status).toBe(410)
    expect(((await gone.json()) as Problem).detail).toMatch(/EVALSTREAM_MAX_PROCESS_BYTES\); ended sessions go first/)

    const more = Array.from({ length: 9 }, (_, n) => textEvent(`b${n + 1}`, 100_000, n))
    const filled = await call('POST', '/v1/sessions/b/events', more)
    // Then the open session alone is past the budget: refused, never evicted.
    expect(filled.status).toBe(503)
    expect(((await filled.json()) as Problem).accepted).toBeGreaterThan(0)
    expect((await call('GET', '/v1/sessions/b')).status).toBe(200)

    // Deleting b gives everything back.
    expect((await call('DELETE', '/v1/sessions/b')).status).toBe(204)
    expect(held()).toBe(0)
    expect((await create('c')).status).toBe(201)
  })

  it('with SQLite an ended session is unloaded, not evicted: it is rebuilt when asked for', async () => {
    const { call, create, held, store } = app({ EVALSTREAM_MAX_PROCESS_BYTES: '1000000', EVALSTREAM_MAX_SESSION_BYTES: '10000000' }, true)
    expect((await create('a')).status).toBe(201)
    const a = Array.from({ length: 8 }, (_, n) => textEvent(`a${n}`, 100_000, n))
    expect((await call('POST', '/v1/sessions/a/events', a)).status).toBe(202)
    const ended = await (await call('POST', '/v1/sessions/a/end')).json()
    const endedShare = held()
    expect((await create('b')).status).toBe(201)
    // One invocation's events stay in memory until it completes: b's first leaves room for half of
    // what a's ended session takes, so the next (as large as that) fits only once `a` has left memory.
    const room = 1_000_000 - held()
    const first = eventOfBytes('b0', room - endedShare / 2, 0)
    expect((await call('POST', '/v1/sessions/b/events', [first])).status).toBe(202)
    expect(store.stats!()).toMatchObject({ live: 2, ended: 1 })
    expect((await call('POST', '/v1/sessions/b/events', [eventOfBytes('b0', endedShare, 1)])).status).toBe(202)
    expect(store.stats!()).toMatchObject({ live: 1, ended: 1, evicted: { memory: 0 } })
    // Asked for, `a` is rebuilt from SQLite and answers as before.
    expect(await (await call('POST', '/v1/sessions/a/end')).json()).toEqual(ended)
    expect(store.stats!().live).toBe(2)
  })

  it('with SQLite it is charged what memory holds: completed invocations and results are in the store', async () => {
    const sqlite = app({ EVALSTREAM_MAX_SESSION_BYTES: '500000' }, true)
    const memory = app({ EVALSTREAM_MAX_SESSION_BYTES: '500000' })
    for (const { create, call } of [sqlite, memory]) {
      expect((await create('s')).status).toBe(201)
      const events = Array.from({ length: 4 }, (_, n) => textEvent(`i${n}`, 100_000, n))
      expect((await call('POST', '/v1/sessions/s/events', events)).status).toBe(202)
    }
    // In memory the four events and their results are held; with SQLite only the open invocation's event.
    expect(memory.held()).toBeGreaterThan(4 * 100_000)
    expect(sqlite.held()).toBeGreaterThan(OPEN_SESSION_BYTES + 100_000)
    expect(sqlite.held()).toBeLessThan(OPEN_SESSION_BYTES + 110_000)
    // The session's own quota counts everything it was given either way: the fifth event is refused on both.
    for (const { call } of [sqlite, memory]) {
      const refused = await call('POST', '/v1/sessions/s/events', [textEvent('i4', 100_000, 4)])
      expect(refused.status).toBe(413)
      expect(((await refused.json()) as Problem).limit.name).toBe('EVALSTREAM_MAX_SESSION_BYTES')
    }
    // Completing the last invocation lets its event go; ending and deleting give the rest back.
    expect((await sqlite.call('POST', '/v1/sessions/s/end')).status).toBe(200)
    expect(sqlite.held()).toBeLessThan(OPEN_SESSION_BYTES)
    expect((await sqlite.call('DELETE', '/v1/sessions/s')).status).toBe(204)
    expect(sqlite.held()).toBe(0)
  })

  it('an ended session keeps its results, not its engine: it answers the same and holds tens of KB', async () => {
    const { call, create, held } = app({})
    expect((await create('e')).status).toBe(201)
    const events = Array.from({ length: 3 }, (_, n) => textEvent(`e${n}`, 200, n))
    expect((await call('POST', '/v1/sessions/e/events', events)).status).toBe(202)
    const open = held()
    const ended = (await (await call('POST', '/v1/sessions/e/end')).json()) as Record<string, unknown>
    expect(held()).toBeLessThan(open / 2)
    expect(held()).toBeLessThan(32_000)
    // The same answers as before the engine was let go.
    expect(await (await call('POST', '/v1/sessions/e/end')).json()).toEqual(ended)
    const snapshot = (await (await call('GET', '/v1/sessions/e')).json()) as {
      ended: boolean
      case_result: unknown
      invocations: unknown[]
    }
    expect(snapshot).toMatchObject({ ended: true, case_result: ended })
    expect(snapshot.invocations).toHaveLength(3)
    const conversation = (await (await call('GET', '/v1/sessions/e/conversation')).json()) as { entries: { parts: { text: string }[] }[] }
    expect(conversation.entries.map((e) => e.parts[0]!.text.slice(0, 2))).toEqual(['0:', '1:', '2:'])
    // Events after the end are still refused as before.
    expect((await call('POST', '/v1/sessions/e/events', [textEvent('e9', 10)])).status).toBe(409)
  })
})

describe('jsonBytes', () => {
  it('is close to the length of the JSON encoding', () => {
    for (const value of [textEvent('i', 1000), { a: [1, true, null, 'x'], b: { c: {} } }, 'plain', 42]) {
      const exact = JSON.stringify(value).length
      expect(jsonBytes(value)).toBeGreaterThanOrEqual(exact)
      expect(jsonBytes(value)).toBeLessThanOrEqual(exact * 1.5 + 8)
    }
  })

  it('counts each value alone, whatever was walked before (its stack is reused between walks)', () => {
    const small = { a: [1, true, null, 'x'], b: { c: {} } }
    const wide = { items: Array.from({ length: 5000 }, (_, i) => ({ i })) }
    const first = jsonBytes(small)
    expect(first).toBe(46)
    expect(jsonBytes(wide)).toBe(2 + 9 + 2 + 5000 + 5000 * (2 + 5 + 8))
    expect(jsonBytes(small)).toBe(first)
    expect(jsonBytes('plain')).toBe(7)
    expect(jsonBytes(small)).toBe(first)
  })
})

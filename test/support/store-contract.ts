/**
 * The session store contract as plain async cases (node:assert, no test framework), so the same
 * suite runs in-process under vitest (memory, node:sqlite), under Deno (node:sqlite through
 * `deno run`) and inside a Durable Object in workerd (ctx.storage.sql through Miniflare).
 * Time is a fake clock the harness advances; nothing sleeps.
 */
import assert from 'node:assert/strict'
import { createSessionEngine } from '../../src/engine/session-engine.ts'
import type { SessionSpec } from '../../src/engine/types.ts'
import { decodeFrameValue, isIngestIssue } from '../../src/ingest/index.ts'
import type { HostedSession } from '../../src/session/session.ts'
import { createResultFeed, type FedResult } from '../../src/session/result-feed.ts'
import type { SessionStore, StoreOptions } from '../../src/session/store.ts'

export type ContractInput = { events: unknown[]; config: unknown; evalCase: unknown }

export type ContractHarness = {
  /** A store over fresh, empty storage. */
  fresh(options: StoreOptions): SessionStore
  /** Durable stores only: a second store over the same storage, as after a restart. */
  reopen?(options: StoreOptions): SessionStore
  input: ContractInput
}

export type ContractCase = { name: string; run(h: ContractHarness): Promise<void> }

const createEngine = (o: Parameters<typeof createSessionEngine>[0]) => createSessionEngine(o)

function clock(start = 1_000_000) {
  let t = start
  return { now: () => t, advance: (ms: number) => void (t += ms) }
}

function spec(id: string, input: ContractInput): SessionSpec {
  return { session_id: id, eval_config: input.config, eval_case: input.evalCase }
}

async function open(store: SessionStore, id: string, input: ContractInput): Promise<HostedSession> {
  const created = await store.create(spec(id, input), createEngine)
  assert.ok(created.ok, `create ${id}`)
  return created.session
}

function feed(session: HostedSession, events: unknown[]): void {
  events.forEach((raw, index) => {
    const decoded = decodeFrameValue(raw, index)
    assert.ok(!isIngestIssue(decoded), `event ${index} decodes`)
    session.push(decoded)
  })
}

const LIMITS = { idleTtlMs: 1_000, endedRetentionMs: 5_000, goneNoticeMs: 60_000, maxSessions: 3 }

export const STORE_CONTRACT: ContractCase[] = [
  {
    name: 'create, get, and 409 for a taken id',
    async run(h) {
      const store = h.fresh({ sweeper: 'manual' })
      const a = await open(store, 'a', h.input)
      assert.equal(await store.get('a', createEngine), a)
      const again = await store.create(spec('a', h.input), createEngine)
      assert.equal(again.ok, false)
      assert.equal(!again.ok && again.problem.status, 409)
      assert.equal(await store.get('never', createEngine), undefined)
      assert.equal(await store.gone('never'), undefined)
    },
  },
  {
    name: 'delete closes subscribers, forgets the session (404, not 410), and is false the second time',
    async run(h) {
      const store = h.fresh({ sweeper: 'manual' })
      const a = await open(store, 'a', h.input)
      feed(a, h.input.events)
      const told: string[] = []
      a.log.subscribe(() => {}, (c) => told.push(c.message))
      assert.equal(await store.delete('a'), true)
      assert.match(told[0] ?? '', /was deleted/)
      assert.equal(a.log.subscriberCount(), 0)
      assert.equal(await store.get('a', createEngine), undefined)
      assert.equal(await store.gone('a'), undefined)
      assert.equal(await store.delete('a'), false)
      // The id is free again, with nothing of the old session in it.
      const b = await open(store, 'a', h.input)
      assert.equal(b.log.lastSeq(), 0)
    },
  },
  {
    name: 'an idle session is evicted after the idle TTL and answered as gone, lazily and by the sweeper',
    async run(h) {
      const c = clock()
      const store = h.fresh({ sweeper: 'manual', now: c.now, limits: LIMITS })
      await open(store, 'lazy', h.input)
      const swept = await open(store, 'swept', h.input)
      const told: string[] = []
      swept.log.subscribe(() => {}, (x) => told.push(x.message))
      c.advance(999)
      assert.ok(await store.get('lazy', createEngine), 'still there just before the TTL')
      assert.equal(store.sweep(), 1_000_000 + 1_000, 'next due: the untouched session')
      c.advance(1)
      store.sweep()
      assert.match(told[0] ?? '', /no request for 1000 ms/)
      assert.equal((await store.gone('swept'))?.reason, 'idle')
      c.advance(999)
      assert.equal(await store.get('lazy', createEngine), undefined)
      assert.equal((await store.gone('lazy'))?.reason, 'idle')
      // Creating the id again clears the notice.
      await open(store, 'lazy', h.input)
      assert.equal(await store.gone('lazy'), undefined)
    },
  },
  {
    name: 'an ended session keeps its result for the retention, then goes; the notice goes later',
    async run(h) {
      const c = clock()
      const store = h.fresh({ sweeper: 'manual', now: c.now, limits: LIMITS })
      const s = await open(store, 'e', h.input)
      feed(s, h.input.events)
      const result = await s.end()
      c.advance(4_999)
      store.sweep()
      const kept = await store.get('e', createEngine)
      assert.ok(kept, 'kept during retention although idle TTL passed')
      assert.deepEqual(await kept.end(), result)
      assert.equal(kept.log.readAfter(0).at(-1)?.type, 'case.result')
      // Read as stored (a BLOB: node:sqlite's Uint8Array, a Durable Object's ArrayBuffer), the case result's bytes are its text's.
      const last = kept.log.lastSeq()
      assert.equal(new TextDecoder().decode(kept.log.dataBytes(last)), kept.log.dataText(last))
      c.advance(1)
      store.sweep()
      assert.equal(await store.get('e', createEngine), undefined)
      assert.equal((await store.gone('e'))?.reason, 'retention')
      c.advance(60_000)
      assert.equal(store.sweep(), undefined, 'nothing left to expire')
      assert.equal(await store.gone('e'), undefined)
    },
  },
  {
    name: 'past the cap the least recently active session goes, ended ones first',
    async run(h) {
      // Apart by more than the store's activity resolution (at most 1 s), so each touch counts.
      const STEP = 2_000
      const c = clock()
      const store = h.fresh({ sweeper: 'manual', now: c.now, limits: { ...LIMITS, idleTtlMs: 1e9 } })
      await open(store, 'old', h.input)
      c.advance(STEP)
      await open(store, 'mid', h.input)
      c.advance(STEP)
      await open(store, 'new', h.input)
      c.advance(STEP)
      await store.get('old', createEngine)
      c.advance(STEP)
      await open(store, 'fourth', h.input)
      assert.equal((await store.gone('mid'))?.reason, 'capacity')
      assert.ok(await store.get('old', createEngine))
      const n = await store.get('new', createEngine)
      await n!.end()
      c.advance(STEP)
      await open(store, 'fifth', h.input)
      assert.equal((await store.gone('new'))?.reason, 'capacity', 'the ended session went before older open ones')
      for (const id of ['old', 'fourth', 'fifth']) assert.ok(await store.get(id, createEngine), id)
    },
  },
  {
    name: 'notices are capped: the oldest is dropped first (then the id is 404 again)',
    async run(h) {
      const c = clock()
      const store = h.fresh({ sweeper: 'manual', now: c.now, limits: { ...LIMITS, idleTtlMs: 1e9, maxSessions: 1 }, maxGoneNotices: 2 })
      for (const id of ['n1', 'n2', 'n3', 'n4']) {
        await open(store, id, h.input)
        c.advance(2_000)
      }
      assert.equal(await store.gone('n1'), undefined)
      assert.equal((await store.gone('n2'))?.reason, 'capacity')
      assert.equal((await store.gone('n3'))?.reason, 'capacity')
      assert.ok(await store.get('n4', createEngine))
    },
  },
  {
    name: 'a session outlives its store: reopened, it replays with no lost event and no duplicate result',
    async run(h) {
      if (!h.reopen) return
      const first = h.fresh({ sweeper: 'manual' })
      const s = await open(first, 'd', h.input)
      const half = Math.floor(h.input.events.length / 2)
      feed(s, h.input.events.slice(0, half))
      const before = s.log.readAfter(0)
      assert.ok(before.length > 0)
      first.close()
      const second = h.reopen({ sweeper: 'manual' })
      const r = await second.get('d', createEngine)
      assert.ok(r)
      assert.deepEqual(r.log.readAfter(0), before)
      h.input.events.slice(half).forEach((raw, i) => {
        const decoded = decodeFrameValue(raw, half + i)
        assert.ok(!isIngestIssue(decoded))
        r.push(decoded)
      })
      const result = await r.end()
      const all = r.log.readAfter(0)
      assert.deepEqual(all.map((e) => e.seq), all.map((_, i) => i + 1))
      assert.equal(new Set(all.map((e) => e.key)).size, all.length, 'no result twice')
      assert.equal(all.at(-1)?.type, 'case.result')
      const third = h.reopen({ sweeper: 'manual' })
      const ended = await third.get('d', createEngine)
      assert.equal(ended?.ended, true)
      assert.deepEqual(await ended!.end(), result)
      assert.deepEqual(ended!.log.readAfter(0), all)
    },
  },
  {
    name: 'the result feed hears every new result once, with its session, and nothing again on replay',
    async run(h) {
      const heard: FedResult[] = []
      const feedOf = () => {
        const f = createResultFeed()
        f.watch((r) => heard.push(r))
        return f
      }
      const first = h.fresh({ sweeper: 'manual', feed: feedOf() })
      const s = await open(first, 'f', h.input)
      feed(s, h.input.events)
      await s.end()
      const logged = s.log.readAfter(0)
      assert.deepEqual(heard.map((r) => r.event), logged)
      assert.ok(heard.every((r) => r.sessionId === 'f' && typeof r.atMs === 'number'))
      if (!h.reopen) return
      first.close()
      // A restarted host replays the session: the results are in its log already, so none is news.
      const again = h.reopen({ sweeper: 'manual', feed: feedOf() })
      const replayed = await again.get('f', createEngine)
      assert.deepEqual(replayed?.log.readAfter(0), logged)
      assert.equal(heard.length, logged.length)
    },
  },
]

/**
 * Runs every case; a failure is reported, not thrown, so a runtime without a test runner can print them.
 * @example const outcomes = await runContract(harness)
 */
export async function runContract(h: ContractHarness): Promise<{ name: string; error?: string }[]> {
  const out: { name: string; error?: string }[] = []
  for (const c of STORE_CONTRACT) {
    try {
      await c.run(h)
      out.push({ name: c.name })
    } catch (e) {
      out.push({ name: c.name, error: (e as Error).stack ?? String(e) })
    }
  }
  return out
}

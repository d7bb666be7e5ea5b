/**
 * Covers: worker/index-shards.ts. A tenant's results index spread over shards (each session's
 * results in one, by a hash of its id) reads as one index: the same results, stats and sessions as
 * a single index holding everything. The shards are real indexes (node:sqlite in memory) behind
 * the real monitoring routes, reached through an in-process stand-in for the INDEX namespace.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { type ResultsIndex, sqliteResultsIndex } from '../../../src/monitor/results-index.ts'
import { resultsRoutes } from '../../../src/http/results-routes.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import type { FedResult } from '../../../src/session/result-feed.ts'
import { indexShardName, readIndexShards } from '../../../worker/index-shards.ts'
import { shardOf } from '../../../worker/shards.ts'
import { seededRandom } from '../../support/prng.ts'
import { Hono } from 'hono'

const SHARDS = 3
const NOW = 10_000_000
const CRITERIA = ['a_v1', 'b_v1', 'c_v1']

/**
 * Results of 12 sessions in time order: scores, NOT_EVALUATED without a score, some revisions, case
 * results; with `ties`, some share a millisecond.
 */
function results(seed: number, ties = true): FedResult[] {
  const random = seededRandom(seed)
  const out: FedResult[] = []
  const seqs = new Map<string, number>()
  let at = 1_000_000
  for (let i = 0; i < 300; i++) {
    const session = `s${Math.floor(random() * 12)}`
    const seq = (seqs.get(session) ?? 0) + 1
    seqs.set(session, seq)
    at += Math.floor(random() * 3) + (ties ? 0 : 1)
    const metric = CRITERIA[Math.floor(random() * CRITERIA.length)]!
    const scored = random() > 0.2
    const score = Math.round(random() * 100) / 100
    const data = random() > 0.9 ? { final_eval_status: score >= 0.5 ? 1 : 2 } : {
      invocation_index: Math.floor(random() * 3),
      metric_name: metric,
      score: scored ? score : null,
      threshold: 0.5,
      eval_status: !scored ? 'NOT_EVALUATED' : score >= 0.5 ? 'PASSED' : 'FAILED',
      revision: random() > 0.8 ? 1 : 0,
    }
    const type = 'final_eval_status' in data ? 'case.result' : 'criterion.result'
    out.push({ sessionId: session, atMs: at, event: { seq, type, key: `${type}/${seq}`, data } } as unknown as FedResult)
  }
  return out
}

function shardedIndex() {
  const index = (): ResultsIndex => sqliteResultsIndex(sqlFromDatabaseSync(new DatabaseSync(':memory:')), { now: () => NOW })
  const whole = index()
  const shards = Array.from({ length: SHARDS }, index)
  const app = (i: ResultsIndex) => new Hono().route('/v1', resultsRoutes(i, () => NOW))
  const apps = new Map(shards.map((s, k) => [indexShardName(undefined, k), app(s)]))
  const namespace = {
    idFromName: (name: string) => name,
    get: (name: unknown) => ({ fetch: async (request: Request) => apps.get(String(name))!.fetch(request) }),
  }
  const record = (rs: FedResult[]) => {
    for (const r of rs) {
      whole.record(r)
      shards[shardOf(r.sessionId, SHARDS)]!.record(r)
    }
  }
  const read = async (path: string): Promise<any> =>
    (await readIndexShards(new Request(`https://x${path}`), namespace, undefined, SHARDS)).json()
  const readWhole = async (path: string): Promise<any> => (await app(whole).fetch(new Request(`https://x${path}`))).json()
  return { record, read, readWhole, shards }
}

/** Numbers to 9 digits: merged means are sums in another order. */
const rounded = (v: unknown): unknown =>
  typeof v === 'number'
    ? Math.round(v * 1e9) / 1e9
    : Array.isArray(v)
    ? v.map(rounded)
    : v && typeof v === 'object'
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rounded(x)]))
    : v

describe('results index over shards', () => {
  it('stats merged from the shards equal one index holding every result', async () => {
    const index = shardedIndex()
    index.record(results(1))
    expect(index.shards.every((s) => s.results({ tenant: '' }).results.length > 0)).toBe(true)
    const path = '/v1/stats?since=0&until=2000000&bucket_ms=10000'
    const merged = await index.read(path)
    const whole = await index.readWhole(path)
    expect(merged.criteria.length).toBe(CRITERIA.length)
    expect(rounded(merged.criteria)).toEqual(rounded(whole.criteria))
  })

  it('pages of results, cursor after cursor: every result once, newest first, as one index', async () => {
    const index = shardedIndex()
    index.record(results(2))
    const all = (await index.readWhole('/v1/results?limit=1000')).results
    const paged: any[] = []
    let cursor: string | null = ''
    let pages = 0
    while (cursor !== null) {
      const page: any = await index.read(`/v1/results?limit=7${cursor ? `&cursor=${cursor}` : ''}`)
      expect(page.results.length).toBeLessThanOrEqual(7)
      paged.push(...page.results)
      cursor = page.next_cursor
      if (pages++ === 0) {
        // Results arriving after the first page are newer than it: no later page shows them.
        const later = { sessionId: 's1', atMs: 9_000_000, event: { seq: 999, type: 'error', key: 'error/999', data: {} } }
        index.record([later as unknown as FedResult])
      }
    }
    const key = (r: any) => `${r.session_id}/${r.seq}`
    expect(paged.map(key).sort()).toEqual(all.map(key).sort())
    expect(new Set(paged.map((r) => r.id)).size).toBe(paged.length)
    const times = paged.map((r) => r.at_ms)
    expect(times).toEqual([...times].sort((a, b) => b - a))
    // A cursor not made by this index (one position, not one per shard) is refused.
    expect((await index.read('/v1/results?cursor=5')).status).toBe(400)
  })

  it('sessions: the most recently active of every shard, at most limit', async () => {
    const index = shardedIndex()
    // Sessions active in the same millisecond are in no particular order, in one index as in many.
    index.record(results(3, false))
    const merged = (await index.read('/v1/sessions?limit=5')).sessions
    const whole = (await index.readWhole('/v1/sessions?limit=5')).sessions
    expect(merged).toEqual(whole)
  })
})

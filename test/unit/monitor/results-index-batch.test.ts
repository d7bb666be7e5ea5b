/**
 * A batch of results touches each of its sessions' rows once (one upsert per session, not one per
 * result), and leaves the index exactly as recording the same results one at a time does. A
 * result whose text the log made already (result-json.ts) is indexed with that text, not
 * stringified again.
 * Covers: src/monitor/results-index.ts, src/monitor/results-index-rows.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { sqliteResultsIndex } from '../../../src/monitor/results-index.ts'
import type { FedResult } from '../../../src/session/result-feed.ts'
import { rememberResultDataJson } from '../../../src/session/result-json.ts'
import { type Sql, sqlFromDatabaseSync } from '../../../src/session/sql.ts'

const fed = (sessionId: string, seq: number, atMs: number, event: Omit<FedResult['event'], 'seq'>): FedResult =>
  ({ sessionId, tenant: 't', appName: `app-${sessionId}`, atMs, event: { seq, ...event } }) as FedResult

const started = (s: string, seq: number, at: number, index: number) =>
  fed(s, seq, at, { type: 'invocation.started', key: `started/${index}`, data: { invocation_id: `e-${index}`, invocation_index: index } })
const verdict = (s: string, seq: number, at: number, index: number, score: number) =>
  fed(s, seq, at, {
    type: 'criterion.result',
    key: `result/${index}/m/0`,
    data: {
      invocation_id: `e-${index}`,
      invocation_index: index,
      metric_name: 'm',
      score,
      threshold: 0.5,
      eval_status: score >= 0.5 ? 'PASSED' : 'FAILED',
      details: {},
    },
  })
const caseResult = (s: string, seq: number, at: number, code: number) =>
  fed(s, seq, at, { type: 'case.result', key: 'case', data: { final_eval_status: code } } as Omit<FedResult['event'], 'seq'>)

// Two sessions interleaved, out of time order within the batch, one of them ending (FAILED is 2).
const BATCH: FedResult[] = [
  started('a', 1, 1_010, 0),
  started('b', 1, 1_005, 0),
  verdict('a', 2, 1_020, 0, 1),
  verdict('b', 2, 1_003, 0, 0),
  started('a', 3, 1_030, 1),
  verdict('a', 4, 1_040, 1, 0),
  caseResult('a', 5, 1_050, 2),
  verdict('b', 3, 1_060, 0, 1),
]

function counted(): { sql: Sql; upserts: () => number } {
  const inner = sqlFromDatabaseSync(new DatabaseSync(':memory:'))
  let upserts = 0
  return {
    sql: {
      query(statement, ...params) {
        if (statement.includes('INSERT INTO es_index_sessions')) upserts += 1
        return inner.query(statement, ...params)
      },
    },
    upserts: () => upserts,
  }
}

const dump = (sql: Sql) => ({
  sessions: sql.query('SELECT * FROM es_index_sessions ORDER BY session_id'),
  results: sql.query('SELECT * FROM es_index_results ORDER BY id'),
})

describe('results index: a batch', () => {
  it('upserts each session once and ends as recording one by one does', () => {
    const one = counted()
    const single = sqliteResultsIndex(one.sql, { now: () => 2_000 })
    for (const r of BATCH) single.record(r)
    const many = counted()
    const batched = sqliteResultsIndex(many.sql, { now: () => 2_000 })
    expect(batched.recordAll(BATCH)).toBe(BATCH.length)
    expect(one.upserts()).toBe(BATCH.length)
    expect(many.upserts()).toBe(2)
    expect(dump(many.sql)).toEqual(dump(one.sql))
    expect(dump(many.sql).sessions).toMatchObject([
      { session_id: 'a', first_ms: 1_010, last_ms: 1_050, invocations: 2, status: 'FAILED' },
      { session_id: 'b', first_ms: 1_005, last_ms: 1_060, invocations: 1, status: null },
    ])
  })

  it('writes the text a result was logged with, and stringifies a result whose text is not kept', () => {
    const sql = sqlFromDatabaseSync(new DatabaseSync(':memory:'))
    const index = sqliteResultsIndex(sql, { now: () => 2_000 })
    const logged = verdict('a', 1, 1_000, 0, 1)
    const unlogged = verdict('a', 2, 1_010, 1, 0)
    // A marker no stringify would make: the index's text can only have come from the kept one.
    const kept = JSON.stringify(logged.event.data, null, 1)
    rememberResultDataJson(logged.event.data, kept)
    expect(index.recordAll([logged])).toBe(1)
    expect(index.record(unlogged)).toBe(true)
    const rows = sql.query('SELECT seq, data FROM es_index_results ORDER BY seq')
    expect(rows).toEqual([
      { seq: 1, data: kept },
      { seq: 2, data: JSON.stringify(unlogged.event.data) },
    ])
  })
})

/**
 * Over node:sqlite the index writes through `Sql.run` (what changed, no rows built) instead of
 * `INSERT ... RETURNING`; over a Sql with `query` alone (a Durable Object's) it keeps RETURNING.
 * Both leave the same index: the same rows and ids, repeats refused, revisions marked, the row
 * limit trimmed to the same count.
 * Covers: src/monitor/results-index.ts, src/session/sql.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { sqliteResultsIndex } from '../../../src/monitor/results-index.ts'
import type { FedResult } from '../../../src/session/result-feed.ts'
import { type Sql, sqlFromDatabaseSync } from '../../../src/session/sql.ts'

const verdict = (session: string, seq: number, revision: number, score: number): FedResult =>
  ({
    sessionId: session,
    atMs: 1_000 + seq,
    event: {
      seq,
      type: 'criterion.result',
      key: `result/0/m/${revision}`,
      data: { invocation_index: 0, metric_name: 'm', score, threshold: 0.5, eval_status: score >= 0.5 ? 'PASSED' : 'FAILED', revision },
    },
  }) as unknown as FedResult
const started = (session: string, seq: number): FedResult =>
  ({
    sessionId: session,
    atMs: 1_000 + seq,
    event: { seq, type: 'invocation.started', key: 'started/0', data: { invocation_id: 'e', invocation_index: 0 } },
  }) as unknown as FedResult

const RESULTS = [
  started('a', 1),
  verdict('a', 2, 0, 0),
  started('b', 1),
  verdict('b', 2, 0, 1),
  verdict('a', 3, 1, 1),
  verdict('b', 3, 1, 0),
]

/** node:sqlite's Sql, with or without its `run`, counting statements that carry RETURNING. */
function counted(withRun: boolean): { sql: Sql; returning: () => number } {
  const inner = sqlFromDatabaseSync(new DatabaseSync(':memory:'))
  let returning = 0
  const query: Sql['query'] = (statement, ...params) => {
    if (statement.includes('RETURNING')) returning += 1
    return inner.query(statement, ...params)
  }
  return { sql: withRun ? { query, run: inner.run } : { query }, returning: () => returning }
}

const dump = (sql: Sql) => ({
  sessions: sql.query('SELECT * FROM es_index_sessions ORDER BY session_id'),
  results: sql.query('SELECT * FROM es_index_results ORDER BY id'),
})

describe('results index: writes through Sql.run', () => {
  it('ends as the RETURNING path does, with no RETURNING statement', () => {
    const ends = [true, false].map((withRun) => {
      const c = counted(withRun)
      const index = sqliteResultsIndex(c.sql, { now: () => 2_000, limits: { maxRows: 3 } })
      const recorded = [index.recordAll(RESULTS.slice(0, 4)), index.recordAll(RESULTS), index.record(RESULTS[5]!)]
      index.prune()
      return { recorded, dump: dump(c.sql), returning: c.returning() }
    })
    const [run, returning] = ends as [(typeof ends)[0], (typeof ends)[0]]
    // The second batch repeats the first four: the two revisions are new, and the started results
    // count each time (they keep no row to repeat); the single repeat is refused.
    expect(run.recorded).toEqual([4, 4, false])
    expect(run.dump).toEqual(returning.dump)
    // Six rows went in, the limit keeps the last three; the revisions made the first ones not current.
    expect(run.dump.results.map((r) => [r.session_id, r.seq, r.current])).toEqual([['b', 2, 0], ['a', 3, 1], ['b', 3, 1]])
    expect(run.returning).toBe(0)
    expect(returning.returning).toBeGreaterThan(0)
  })
})

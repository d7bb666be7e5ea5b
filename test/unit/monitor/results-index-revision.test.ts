/**
 * A revised criterion result marks the earlier revision not current by key (session, invocation,
 * criterion) through an index, so one long, often reopened invocation costs the same per result
 * at its 1,000th revision as at its first: SQLite's plan names the index, and the aggregates still
 * count the latest revision only.
 * Covers: src/monitor/results-index.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { sqliteResultsIndex } from '../../../src/monitor/results-index.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import type { FedResult } from '../../../src/session/result-feed.ts'

const verdict = (seq: number, revision: number, score: number): FedResult =>
  ({
    sessionId: 's',
    atMs: 1_000 + seq,
    event: {
      seq,
      type: 'criterion.result',
      key: `criterion/0/m/${revision}`,
      data: { invocation_index: 0, metric_name: 'm', score, threshold: 0.5, eval_status: score >= 0.5 ? 'PASSED' : 'FAILED', revision },
    },
  }) as unknown as FedResult

describe('results index: revisions by key', () => {
  it("the revision update uses the (session, invocation, criterion) index, not a scan of the session's rows", () => {
    const sql = sqlFromDatabaseSync(new DatabaseSync(':memory:'))
    sqliteResultsIndex(sql, { now: () => 2_000 })
    const plan = sql
      .query(
        'EXPLAIN QUERY PLAN UPDATE es_index_results SET current = 0 WHERE session_id = ? AND invocation_index = ? AND criterion = ? AND id <> ? AND current = 1',
        's',
        0,
        'm',
        1,
      )
      .map((r) => String(r.detail))
      .join('\n')
    expect(plan).toContain('es_index_results_current')
  })

  it('after 500 revisions exactly one row is current, the latest', () => {
    const sql = sqlFromDatabaseSync(new DatabaseSync(':memory:'))
    const index = sqliteResultsIndex(sql, { now: () => 2_000 })
    for (let r = 0; r < 500; r++) expect(index.record(verdict(r + 1, r, r % 2))).toBe(true)
    const current = sql.query("SELECT score FROM es_index_results WHERE session_id = 's' AND current = 1")
    expect(current).toEqual([{ score: 1 }])
    expect(Number(sql.query('SELECT COUNT(*) AS n FROM es_index_results')[0]!.n)).toBe(500)
  })
})

/**
 * GET /v1/stats without `until` counts every result recorded so far, including one recorded in
 * the very millisecond of the request (the window's end is exclusive). The clock is injected, so
 * "the same millisecond" is exact rather than a race.
 * Covers: src/http/results-routes.ts, src/http/results-query.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import type { ResultEvent } from '../../../src/engine/types.ts'
import { sqliteResultsIndex } from '../../../src/monitor/results-index.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { resultsRoutes } from '../../../src/http/results-routes.ts'

const NOW = 1_767_225_600_000

const passed = (seq: number): ResultEvent => ({
  seq,
  type: 'criterion.result',
  key: `result/${seq}/tool_trajectory_avg_score/0`,
  data: {
    invocation_id: `e-${seq}`,
    invocation_index: seq,
    metric_name: 'tool_trajectory_avg_score',
    score: 1,
    threshold: 1,
    eval_status: 'PASSED',
    details: {},
  },
})

describe('GET /v1/stats window', () => {
  it('counts a result recorded in the same millisecond as the request, and none from the future', async () => {
    const db = new DatabaseSync(':memory:')
    try {
      const index = sqliteResultsIndex(sqlFromDatabaseSync(db), { now: () => NOW })
      index.record({ sessionId: 's1', atMs: NOW - 5_000, event: passed(1) })
      index.record({ sessionId: 's1', atMs: NOW, event: passed(2) })
      index.record({ sessionId: 's1', atMs: NOW + 1, event: passed(3) })
      const res = await resultsRoutes(index, () => NOW).request('/stats')
      expect(res.status).toBe(200)
      const body = (await res.json()) as any
      const trajectory = body.criteria.find((c: any) => c.criterion === 'tool_trajectory_avg_score')
      expect(trajectory.counts.PASSED).toBe(2)
      expect(Date.parse(body.until)).toBe(NOW + 1)
      expect(Date.parse(body.since)).toBe(NOW + 1 - 24 * 3_600_000)
    } finally {
      db.close()
    }
  })
})

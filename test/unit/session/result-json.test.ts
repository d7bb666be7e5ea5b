/**
 * A result's data is stringified once for every consumer (its SQLite row, the results index, each
 * SSE subscriber), and the texts kept for that are bounded by their total length.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it, vi } from 'vitest'
import { sqliteResultsIndex } from '../../../src/monitor/results-index.ts'
import { INDEX_ROW_VALUES, indexedDataJson, indexRowOf, type IndexRowValue, pushIndexRow } from '../../../src/monitor/results-index-rows.ts'
import { MAX_INDEXED_DATA_CHARS } from '../../../src/monitor/results-index-limits.ts'
import type { FedResult } from '../../../src/session/result-feed.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { largeResultTextChars, RECENT_RESULT_TEXT_CHARS, recentResultTextChars, resultDataJson } from '../../../src/session/result-json.ts'

const data = (n: number) => ({
  invocation_id: `e-${n}`,
  invocation_index: n,
  metric_name: 'tool_trajectory_avg_score',
  score: n / 7,
  threshold: 1,
  eval_status: 'FAILED' as const,
  details: { note: `"quoted" ☃ ${n}\n` },
})

describe('resultDataJson', () => {
  it('is JSON.stringify of the data, and the same text for the same object', () => {
    const d = data(3)
    const first = resultDataJson(d)
    expect(first).toBe(JSON.stringify(d))
    expect(resultDataJson(d)).toBe(first)
  })

  it('keeps at most RECENT_RESULT_TEXT_CHARS of text besides the latest huge one, and makes a dropped one again, equal', () => {
    const oldest = data(-1)
    resultDataJson(oldest)
    const each = resultDataJson(data(0)).length
    for (let n = 1; n < (2 * RECENT_RESULT_TEXT_CHARS) / each; n++) resultDataJson(data(n))
    expect(recentResultTextChars()).toBeLessThanOrEqual(RECENT_RESULT_TEXT_CHARS)
    expect(recentResultTextChars()).toBeGreaterThan(RECENT_RESULT_TEXT_CHARS - 2 * each)
    expect(resultDataJson(oldest)).toBe(JSON.stringify(oldest))
    const before = recentResultTextChars()
    // A huge text is not kept with the others (it would push out hundreds), but alone, the latest one.
    const huge = { ...data(7), details: { text: 'x'.repeat(RECENT_RESULT_TEXT_CHARS / 8) } }
    const hugeText = resultDataJson(huge)
    expect(hugeText).toBe(JSON.stringify(huge))
    expect(recentResultTextChars()).toBe(before)
    expect(largeResultTextChars()).toBe(hugeText.length)
    const stringify = vi.spyOn(JSON, 'stringify')
    try {
      // Asked again (its row, each stream, the /end answer): not stringified again.
      expect(resultDataJson(huge)).toBe(hugeText)
      expect(stringify).not.toHaveBeenCalled()
      const next = { ...data(8), details: { text: 'y'.repeat(RECENT_RESULT_TEXT_CHARS / 8) } }
      resultDataJson(next)
      expect(recentResultTextChars()).toBe(before)
      expect(largeResultTextChars()).toBe(JSON.stringify(next).length)
      // The first one was let go: made again, equal.
      stringify.mockClear()
      expect(resultDataJson(huge)).toBe(hugeText)
      expect(stringify).toHaveBeenCalledTimes(1)
    } finally {
      stringify.mockRestore()
    }
  })
})

describe('indexRowOf and pushIndexRow (what crosses to the index thread)', () => {
  const event: FedResult['event'] = { seq: 4, type: 'criterion.result', key: 'result/0/tool_trajectory_avg_score/0', data: data(1) }

  it('takes the score columns out of the data, its text as made once, and nothing of the webhook', () => {
    const fed: FedResult = {
      sessionId: 's "1"',
      tenant: 'team-ä',
      appName: 'weather_agent',
      webhook: { url: 'https://hooks.example/x', secret: 'do-not-send' },
      event,
      atMs: 1_700_000_000_123,
    }
    const row = indexRowOf(fed, resultDataJson)
    expect(row).toEqual({
      sessionId: 's "1"',
      seq: 4,
      atMs: 1_700_000_000_123,
      tenant: 'team-ä',
      app: 'weather_agent',
      type: 'criterion.result',
      criterion: 'tool_trajectory_avg_score',
      invocation: 1,
      status: 'FAILED',
      score: 1 / 7,
      threshold: 1,
      revision: 0,
      data: JSON.stringify(data(1)),
    })
    expect(row.data).toBe(resultDataJson(event.data))
    const values: IndexRowValue[] = []
    pushIndexRow(values, row)
    expect(values).toHaveLength(INDEX_ROW_VALUES)
    expect(JSON.stringify(values)).not.toContain('do-not-send')
  })

  it('keeps data longer than the index keeps as the summary the index would keep of it', () => {
    const big = {
      final_eval_status: 2,
      eval_id: 'case',
      per_invocation: Array.from({ length: 400 }, (_, i) => ({ text: `turn ${i}`.repeat(8) })),
    }
    const caseEvent: FedResult['event'] = { seq: 9, type: 'case.result', key: 'case', data: big }
    const full = JSON.stringify(big)
    expect(full.length).toBeGreaterThan(MAX_INDEXED_DATA_CHARS)
    const row = indexRowOf({ sessionId: 's', event: caseEvent, atMs: 5 })
    expect(JSON.parse(row.data)).toEqual({ truncated: true, chars: full.length, final_eval_status: 2, eval_id: 'case' })
    expect(row.status).toBe('FAILED')
    expect(row.data).toBe(indexedDataJson(big))
  })

  it('a batch of flat rows leaves the same index as the results themselves, started and progress results included', () => {
    const results: FedResult[] = [
      { seq: 1, type: 'invocation.started', key: 'started/0', data: { invocation_id: 'i0', invocation_index: 0 } },
      { seq: 2, type: 'criterion.progress', key: 'progress/0/m/1', data: { ...data(0), final: false } },
      { seq: 3, type: 'criterion.result', key: 'result/0/m/0', data: data(0) },
      { seq: 4, type: 'invocation.started', key: 'started/1', data: { invocation_id: 'i1', invocation_index: 1 } },
      { seq: 5, type: 'criterion.progress', key: 'progress/1/m/1', data: { ...data(1), final: true } },
      { seq: 6, type: 'criterion.result', key: 'result/1/m/1', data: { ...data(1), revision: 1 } },
      { seq: 7, type: 'error', key: 'error/1', data: { message: 'judge failed' } },
    ].map((event, i) => ({ sessionId: 's', tenant: 't', appName: 'a', event, atMs: 1_000 + i }) as FedResult)
    const values: IndexRowValue[] = []
    for (const r of results) pushIndexRow(values, indexRowOf(r, resultDataJson))
    expect(indexRowOf(results[1]!)).toMatchObject({ invocation: 0, data: '' })
    const tables = (record: (index: ReturnType<typeof sqliteResultsIndex>) => number) => {
      const sql = sqlFromDatabaseSync(new DatabaseSync(':memory:'))
      const recorded = record(sqliteResultsIndex(sql, { now: () => 2_000 }))
      return [recorded, sql.query('SELECT * FROM es_index_results ORDER BY id'), sql.query('SELECT * FROM es_index_sessions')]
    }
    const fromRows = tables((index) => index.recordRows(values))
    expect(fromRows).toEqual(tables((index) => index.recordAll(results)))
    expect(fromRows[0]).toBe(7)
    expect(fromRows[2]).toEqual([expect.objectContaining({ session_id: 's', invocations: 2, first_ms: 1_000, last_ms: 1_006 })])
  })

  it('gives a session without a tenant or an app name empty ones, as the index stores them', () => {
    expect(indexRowOf({ sessionId: 's', event, atMs: 5 })).toMatchObject({ tenant: '', app: '' })
  })
})

/**
 * A result's data is stringified once for every consumer (its SQLite row, the results index, each
 * SSE subscriber), and the memory storage keeps that text, handing readers objects of their own.
 */
import { describe, expect, it } from 'vitest'
import { indexRowJson } from '../../../src/adapter/node/index-writer.ts'
import type { FedResult } from '../../../src/session/result-feed.ts'
import { type LoggedEvent, memoryResultStorage } from '../../../src/session/result-log.ts'
import { resultDataJson } from '../../../src/session/result-json.ts'

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
})

describe('indexRowJson', () => {
  const event: FedResult['event'] = { seq: 4, type: 'criterion.result', key: 'result/0/tool_trajectory_avg_score/0', data: data(1) }

  it('parses back to the fed result without its webhook', () => {
    const fed: FedResult = {
      sessionId: 's "1"',
      tenant: 'team-ä',
      appName: 'weather_agent',
      webhook: { url: 'https://hooks.example/x', secret: 'do-not-send' },
      event,
      atMs: 1_700_000_000_123,
    }
    const { webhook: _, ...expected } = fed
    expect(JSON.parse(indexRowJson(fed))).toEqual(expected)
    expect(indexRowJson(fed)).not.toContain('do-not-send')
  })

  it('leaves out a tenant and an app name the session does not have', () => {
    const parsed = JSON.parse(indexRowJson({ sessionId: 's', event, atMs: 5 }))
    expect(parsed).toEqual({ sessionId: 's', event, atMs: 5 })
    expect('tenant' in parsed || 'appName' in parsed).toBe(false)
  })
})

describe('memory result storage', () => {
  it('keeps each result as text and reads back equal objects, new ones each time', () => {
    const storage = memoryResultStorage()
    const events = [1, 2, 3].map((seq): LoggedEvent => ({ seq, type: 'criterion.result', key: `k/${seq}`, data: data(seq) }))
    for (const e of events) storage.insert(e)
    expect(storage.lastSeq()).toBe(3)
    const read = storage.readAfter(1)
    expect(read).toEqual(events.slice(1))
    expect(read[0]!.data).not.toBe(events[1]!.data)
    expect(storage.readAfter(1)[0]!.data).not.toBe(read[0]!.data)
  })
})

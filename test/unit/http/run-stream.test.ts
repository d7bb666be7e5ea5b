/**
 * An eval set run's progress streams through the same streamer as a session's results: the same
 * bound for a reader that stops reading (past MAX_QUEUED_RESULTS it re-reads the log instead of
 * queueing), and the stream ends at the run's end event, `run.result`.
 * Covers: src/http/result-source.ts, src/runner/hosted-run.ts.
 */
import { describe, expect, it } from 'vitest'
import { MAX_QUEUED_RESULTS, type ResultChunk, resultSource } from '../../../src/http/result-source.ts'
import type { RunEventType } from '../../../src/runner/hosted-run.ts'
import { createResultLog, memoryResultStorage } from '../../../src/session/result-log.ts'

async function readAll(stream: ReadableStream<ResultChunk>): Promise<{ seqs: number[]; types: string[]; chunks: number }> {
  const seqs: number[] = []
  const types: string[] = []
  let chunks = 0
  for await (const chunk of stream) {
    if (!('results' in chunk)) continue
    chunks += 1
    for (const e of chunk.results) {
      seqs.push(e.seq)
      types.push(e.type)
    }
  }
  return { seqs, types, chunks }
}

describe('a run log through the session streamer', () => {
  it('a stalled reader costs no growing queue, misses nothing, and the stream ends at run.result', async () => {
    const log = createResultLog<RunEventType>(memoryResultStorage())
    const end: { seq: number | undefined } = { seq: undefined }
    const source = {
      log,
      get endSeq() {
        return end.seq
      },
    }
    log.append({ type: 'run.started', key: 'run.started/1', data: {} })
    const stream = resultSource(source, { after: 0, heartbeatMs: 60_000, endType: 'run.result' })
    // The reader reads nothing while far more than the queue bound is logged.
    const total = MAX_QUEUED_RESULTS * 3
    for (let i = 0; i < total; i++) log.append({ type: 'criterion.result', key: `r/${i}`, data: { i } })
    end.seq = log.append({ type: 'run.result', key: 'run.result', data: { passed: true } }).seq
    log.append({ type: 'case.done', key: 'after-the-end', data: {} })
    const { seqs, types } = await readAll(stream)
    expect(seqs).toEqual(Array.from({ length: total + 2 }, (_, i) => i + 1))
    expect(types.at(-1)).toBe('run.result')
    expect(log.subscriberCount()).toBe(0)
  })

  it('a reader resuming past run.result gets the end at once', async () => {
    const log = createResultLog<RunEventType>(memoryResultStorage())
    log.append({ type: 'run.started', key: 's', data: {} })
    const endSeq = log.append({ type: 'run.result', key: 'e', data: {} }).seq
    const { seqs } = await readAll(resultSource({ log, endSeq }, { after: endSeq, heartbeatMs: 60_000, endType: 'run.result' }))
    expect(seqs).toEqual([])
  })
})

/**
 * An ended session answers its case result from the logged data while it is still alive (right
 * after the end: the `/end` answer and the streams that follow) and from the log's rows otherwise.
 * Covers: src/session/ended-answers.ts.
 */
import { describe, expect, it } from 'vitest'
import { EndedAnswers } from '../../../src/session/ended-answers.ts'
import { createResultLog, memoryResultStorage } from '../../../src/session/result-log.ts'

const snapshot = { session_id: 's', invocations: [], metrics: [] } as unknown as ConstructorParameters<typeof EndedAnswers>[0]

function loggedCase() {
  const storage = memoryResultStorage()
  const reads = { readAfter: 0 }
  const counted = {
    ...storage,
    lastSeq: () => storage.lastSeq(),
    insert: (e: Parameters<typeof storage.insert>[0]) => storage.insert(e),
    readAfter: (after: number) => (reads.readAfter++, storage.readAfter(after)),
  }
  const log = createResultLog(counted)
  const data = { eval_id: 'c', final_eval_status: 1, overall_eval_metric_results: [] }
  const { seq } = log.append({ type: 'case.result', key: 'case', data })
  return { log, data, seq, reads }
}

describe("an ended session's case result", () => {
  it('is written from the logged data while it is alive, without reading the log', () => {
    const { log, data, seq, reads } = loggedCase()
    const answers = new EndedAnswers(snapshot, seq, log, undefined, new WeakRef(data))
    expect(answers.caseResultJson()).toBe(JSON.stringify(data))
    expect(answers.caseResult()).toBe(data)
    expect(reads.readAfter).toBe(0)
  })

  it('is read back from the log when the session kept no reference', () => {
    const { log, data, seq, reads } = loggedCase()
    const answers = new EndedAnswers(snapshot, seq, log)
    expect(answers.caseResultJson()).toBe(JSON.stringify(data))
    expect(answers.caseResult()).toEqual(data)
    expect(reads.readAfter).toBeGreaterThan(0)
  })
})

/**
 * An ended session answers its case result with the text made when it was logged: from the JSON
 * text cache while it keeps it (right after the end: the `/end` answer and the streams that follow),
 * else as its row stores it, never stringified again; with no reference kept, read back from the log.
 * Covers: src/session/ended-answers.ts, src/session/result-json.ts.
 */
import { describe, expect, it } from 'vitest'
import { EndedAnswers } from '../../../src/session/ended-answers.ts'
import { createResultLog, type LoggedEvent, memoryResultStorage } from '../../../src/session/result-log.ts'
import { RECENT_RESULT_TEXT_CHARS, resultDataJson } from '../../../src/session/result-json.ts'

/** The UTF-8 text of an answer's bytes (undefined stays undefined). */
const decoded = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes))

const snapshot = { session_id: 's', invocations: [], metrics: [] } as unknown as ConstructorParameters<typeof EndedAnswers>[0]

/** A case result whose every stringify is counted; its log stores each result's text as a database row does. */
function loggedCase() {
  const storage = memoryResultStorage()
  const texts = new Map<number, string>()
  const reads = { readAfter: 0, dataText: 0 }
  const counted = {
    ...storage,
    lastSeq: () => storage.lastSeq(),
    insert: (e: LoggedEvent) => (texts.set(e.seq, resultDataJson(e.data)), storage.insert(e)),
    readAfter: (after: number) => (reads.readAfter++, storage.readAfter(after)),
    dataText: (seq: number) => (reads.dataText++, texts.get(seq)),
  }
  const log = createResultLog(counted)
  const made = { count: 0 }
  const plain = { eval_id: 'c', final_eval_status: 1, overall_eval_metric_results: [] }
  const data = { ...plain, toJSON: () => (made.count++, plain) }
  const { seq } = log.append({ type: 'case.result', key: 'case', data })
  return { log, data, seq, reads, made, text: JSON.stringify(plain) }
}

/** Texts enough to push every other one out of the cache. */
function fillTextCache(): void {
  const chunk = 'x'.repeat(RECENT_RESULT_TEXT_CHARS / 20)
  for (let i = 0; i < 24; i++) resultDataJson({ chunk })
}

describe("an ended session's case result", () => {
  it('is written from the text made when it was logged, without reading the log, while the cache keeps it', () => {
    const { log, data, seq, reads, made, text } = loggedCase()
    const answers = new EndedAnswers(snapshot, seq, log, undefined, { data: new WeakRef(data) })
    expect(decoded(answers.caseResultBytes())).toBe(text)
    expect(answers.caseResult()).toBe(data)
    expect(reads).toEqual({ readAfter: 0, dataText: 0 })
    expect(made.count).toBe(1)
  })

  it('is its row as stored once the cache let it go, though the data object is alive: not stringified again', () => {
    const { log, data, seq, reads, made, text } = loggedCase()
    const answers = new EndedAnswers(snapshot, seq, log, undefined, { data: new WeakRef(data) })
    fillTextCache()
    expect(answers.cachedCaseResultBytes()).toBeUndefined()
    expect(decoded(answers.caseResultBytes())).toBe(text)
    expect(decoded(answers.snapshotBytes())).toContain(`"case_result":${text}}`)
    expect(reads.dataText).toBe(2)
    expect(made.count).toBe(1)
  })

  it('is read back from the log when the session kept no reference', () => {
    const { log, data, seq, reads } = loggedCase()
    const answers = new EndedAnswers(snapshot, seq, log)
    expect(decoded(answers.caseResultBytes())).toBe(JSON.stringify(data))
    expect(answers.caseResult()).toBe(data)
    expect(reads.readAfter).toBeGreaterThan(0)
  })
})

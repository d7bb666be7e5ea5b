/**
 * The frame that ends a results stream when its session is evicted or deleted is part of the
 * documented protocol: its data parses with the schema /openapi.json names for `error` frames,
 * as a rejected-event error does.
 * Covers: src/http/result-source.ts.
 */
import { describe, expect, it } from 'vitest'
import { createResultLog, memoryResultStorage } from '../../../src/session/result-log.ts'
import { schemaName } from '../../../src/http/openapi/describe.ts'
import { RESULT_EVENTS } from '../../../src/http/openapi/routes.ts'
import { NAMED_SCHEMAS } from '../../../src/http/openapi/schemas.ts'
import { resultSource } from '../../../src/http/result-source.ts'

const errorSchema = () => NAMED_SCHEMAS[schemaName(RESULT_EVENTS.error.data)]!

describe('the error frame that ends a stream', () => {
  it('is documented: {message} when the session leaves, {kind, index, message} for a rejected event', async () => {
    const log = createResultLog(memoryResultStorage())
    log.append({ type: 'error', key: 'error/1', data: { kind: 'rejected_event', index: 3, message: 'content: expected an object' } })
    // A heartbeat far beyond the test: no timer fires while it runs.
    const reader = resultSource({ log, endSeq: undefined }, { after: 0, heartbeatMs: 3_600_000 }).getReader()
    const first = (await reader.read()).value!
    expect('results' in first && first.results.map((r) => r.type)).toEqual(['error'])
    if ('results' in first) expect(errorSchema().safeParse(first.results[0]!.data).success).toBe(true)
    log.close({ message: 'the session was deleted' })
    let text = ''
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) if ('text' in chunk.value) text += chunk.value.text
    const data = /event: error\ndata: (.*)\n/.exec(text)?.[1]
    expect(JSON.parse(data!)).toEqual({ message: 'the session was deleted' })
    expect(errorSchema().safeParse(JSON.parse(data!)).success).toBe(true)
    expect(errorSchema().safeParse({ reason: 'gone' }).success).toBe(false)
  })
})

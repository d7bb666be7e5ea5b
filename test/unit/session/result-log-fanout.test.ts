/**
 * A result log gives each appended result to the subscribers it had when the result was appended,
 * whatever they do meanwhile: one that unsubscribes itself (or another) still gets that result, one
 * added meanwhile gets only the next, a broken one is dropped and the others still get it. The
 * log keeps its subscribers as an array made when they change, not per result.
 * Covers: src/session/result-log.ts.
 */
import { describe, expect, it } from 'vitest'
import { createResultLog, memoryResultStorage } from '../../../src/session/result-log.ts'

const result = (key: string) => ({ type: 'criterion.result' as const, key, data: {} })

describe('result log fan-out', () => {
  it('gives each result to the subscribers of the moment it was appended', () => {
    const log = createResultLog(memoryResultStorage())
    const got: string[] = []
    let offLater: () => void = () => undefined
    const offFirst = log.subscribe((e) => {
      got.push(`first:${e.seq}`)
      // Leaves on its first result, takes the later one with it, adds a newcomer.
      offFirst()
      offLater()
      log.subscribe((n) => void got.push(`newcomer:${n.seq}`))
    })
    log.subscribe(() => {
      throw new Error('broken')
    })
    offLater = log.subscribe((e) => void got.push(`later:${e.seq}`))
    log.append(result('a'))
    expect(got).toStrictEqual(['first:1', 'later:1'])
    expect(log.subscriberCount()).toBe(1)
    log.append(result('b'))
    expect(got).toStrictEqual(['first:1', 'later:1', 'newcomer:2'])
    log.close({ message: 'gone' })
    log.append(result('c'))
    expect(got).toHaveLength(3)
  })
})

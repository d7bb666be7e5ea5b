/**
 * The SSE splitter scans each character a bounded number of times: one chunk holding many `\n`
 * lines and no `\r` used to be searched for `\r` from every line to its end (lines x length).
 * Work is counted as the characters `String.prototype.indexOf` examines, not timed.
 * Covers: src/ingest/lines.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { sseSplitter } from '../../../src/ingest/lines.ts'

/** Characters examined by indexOf calls on strings at least `minLength` long (the fed chunk, not parser internals). */
function countScannedCharacters(minLength: number): { scanned: number } {
  const work = { scanned: 0 }
  const real = String.prototype.indexOf
  vi.spyOn(String.prototype, 'indexOf').mockImplementation(function (this: string, search: string, position?: number) {
    const found = real.call(this, search, position)
    if (this.length >= minLength) work.scanned += (found === -1 ? this.length : found + search.length) - (position ?? 0)
    return found
  })
  return work
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('sseSplitter cost on one big chunk', () => {
  for (const lineBreak of ['\n', '\r', '\r\n']) {
    it(`${JSON.stringify(lineBreak)} line breaks: 20,000 frames in one chunk, each character scanned at most twice`, () => {
      const frames: string[] = []
      const splitter = sseSplitter({ frame: (text) => frames.push(text), oversize: () => expect.unreachable() })
      const chunk = Array.from({ length: 20_000 }, (_, i) => `data: {"n":${i}}${lineBreak}${lineBreak}`).join('')
      const work = countScannedCharacters(chunk.length)
      splitter.feed(chunk)
      splitter.end()
      expect(frames).toHaveLength(20_000)
      expect(frames[19_999]).toBe('{"n":19999}')
      expect(work.scanned).toBeLessThanOrEqual(2 * chunk.length)
    })
  }
})

/**
 * The SSE splitter scans each character a bounded number of times: one chunk holding many `\n`
 * lines and no `\r` used to be searched for `\r` from every line to its end (lines x length).
 * Work is counted as the characters `String.prototype.indexOf` examines, not timed.
 * Covers: src/ingest/lines.ts.
 */
import { describe, expect, it } from 'vitest'
import { sseSplitter } from '../../../src/ingest/lines.ts'
import { countIndexOfWork } from '../../support/indexof-work.ts'

describe('sseSplitter cost on one big chunk', () => {
  for (const lineBreak of ['\n', '\r', '\r\n']) {
    it(`${JSON.stringify(lineBreak)} line breaks: 20,000 frames in one chunk, each character scanned at most twice`, () => {
      const frames: string[] = []
      const splitter = sseSplitter({ frame: (text) => frames.push(text), oversize: () => expect.unreachable() })
      const chunk = Array.from({ length: 20_000 }, (_, i) => `data: {"n":${i}}${lineBreak}${lineBreak}`).join('')
      const work = countIndexOfWork(chunk.length)
      splitter.feed(chunk)
      splitter.end()
      expect(frames).toHaveLength(20_000)
      expect(frames[19_999]).toBe('{"n":19999}')
      expect(work.scanned).toBeLessThanOrEqual(2 * chunk.length)
    })
  }
})

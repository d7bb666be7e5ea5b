/**
 * The SSE splitter finds each next `\n` and `\r` once per chunk (not once per line): whatever mix
 * of LF, CR and CRLF line ends a chunk holds, one big chunk yields the same frames as the same text
 * fed a character at a time.
 * Covers: src/ingest/lines.ts.
 */
import { describe, expect, it } from 'vitest'
import { sseSplitter } from '../../../src/ingest/lines.ts'

function frames(feed: (s: { feed(t: string): void; end(): void }) => void): string[] {
  const out: string[] = []
  const splitter = sseSplitter({ frame: (t) => void out.push(t), oversize() {} })
  feed(splitter)
  splitter.end()
  return out
}

describe('SSE splitter line ends', () => {
  it('one chunk with LF, CR and CRLF lines gives the frames a character-at-a-time feed gives', () => {
    const ends = ['\n', '\r', '\r\n']
    const text = Array.from({ length: 300 }, (_, i) => `data: {"i":${i}}${ends[i % 3]}${ends[(i + 1) % 3]}`).join('')
    const whole = frames((s) => s.feed(text))
    const bytewise = frames((s) => {
      for (const ch of text) s.feed(ch)
    })
    expect(whole).toHaveLength(300)
    expect(whole).toEqual(bytewise)
    expect(whole[299]).toBe('{"i":299}')
  })

  it('a chunk of LF-only lines after a CR line still splits at every line', () => {
    const text = 'data: {"a":1}\r\r' + Array.from({ length: 1000 }, (_, i) => `data: {"b":${i}}\n\n`).join('')
    expect(frames((s) => s.feed(text))).toHaveLength(1001)
  })
})

/**
 * The proxy's frame splitter: the same frames as a whole-buffer regex search however the text is
 * cut, a frame over the per-event limit skipped without being kept, and each code unit examined
 * once (a frame in many chunks costs time linear in its size, not in size times chunks).
 * Covers: src/http/sse-frames.ts.
 */
import { describe, expect, it } from 'vitest'
import { type OversizedFrame, oversizedNote, sseFrameSplitter, sseFrameStream } from '../../../src/http/sse-frames.ts'
import { seededRandom } from '../../support/prng.ts'

/** The definition: the first two line ends in a row (CRLF, LF, or a CR not followed by LF) end a frame. */
function referenceFrames(text: string): string[] {
  const end = /(?:\r\n|\n|\r(?!\n))(?:\r\n|\n|\r(?!\n))/
  const frames: string[] = []
  let rest = text
  for (;;) {
    // A trailing CR may still become a CRLF: the streaming splitter waits, so the reference does too.
    const match = end.exec(rest.endsWith('\r') ? rest.slice(0, -1) : rest)
    if (!match) break
    frames.push(rest.slice(0, match.index + match[0].length))
    rest = rest.slice(match.index + match[0].length)
  }
  return rest === '' ? frames : [...frames, rest]
}

function splitAll(chunks: string[], maxFrameChars?: number) {
  const split = sseFrameSplitter(maxFrameChars === undefined ? {} : { maxFrameChars })
  const out = chunks.flatMap((c) => split.push(c))
  return { frames: [...out, ...split.end()], scanned: split.scanned() }
}

describe('sseFrameSplitter', () => {
  it('finds the same frames as the whole-text definition, for random text cut at random places', () => {
    const random = seededRandom(7)
    const alphabet = ['\r', '\n', 'a', 'd', ':', ' ']
    for (let round = 0; round < 500; round++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
      const chunks: string[] = []
      for (let at = 0; at < text.length;) {
        const size = 1 + Math.floor(random() * 6)
        chunks.push(text.slice(at, at + size))
        at += size
      }
      expect(splitAll(chunks).frames, JSON.stringify(chunks)).toEqual(referenceFrames(text))
    }
  })

  it('skips a frame over the limit without keeping it, and the frames around it are untouched', () => {
    const big = `data: ${'x'.repeat(300)}\n\n`
    const text = `data: 1\n\n${big}data: 2\r\n\r\n`
    const chunks = text.match(/[^]{1,7}/g)!
    const { frames } = splitAll(chunks, 100)
    expect(frames).toEqual(['data: 1\n\n', { oversized: true, chars: big.length }, 'data: 2\r\n\r\n'])
    // A frame of exactly the limit is still a frame.
    expect(splitAll([`data: ${'y'.repeat(92)}\n\n`], 100).frames).toEqual([`data: ${'y'.repeat(92)}\n\n`])
  })

  it('an endless frame (the input ends inside it) is reported oversized too, never returned', () => {
    expect(splitAll(['data: ', 'z'.repeat(500)], 100).frames).toEqual([{ oversized: true, chars: 506 }])
  })

  it('examines each code unit once: a 4 MiB frame in 4,096 chunks costs 4 MiB of scanning, kept or skipped', () => {
    const chunk = 'x'.repeat(1024)
    const chunks = ['data: ', ...Array<string>(4096).fill(chunk), '\n\n']
    const total = chunks.reduce((n, c) => n + c.length, 0)
    const kept = splitAll(chunks, 8 * 1024 * 1024)
    expect(kept.scanned).toBe(total)
    expect(kept.frames).toHaveLength(1)
    expect((kept.frames[0] as string).length).toBe(total)
    const skipped = splitAll(chunks, 1024 * 1024)
    expect(skipped.scanned).toBe(total)
    expect(skipped.frames).toEqual([{ oversized: true, chars: total }])
  })

  it('through the stream: the oversized frame comes out in order, and the note names the setting', async () => {
    const out: Array<string | OversizedFrame> = []
    const source = new ReadableStream<string>({
      start(c) {
        for (const piece of ['data: 1\n\n', `data: ${'x'.repeat(50)}`, '\n\ndata: 2\n\n']) c.enqueue(piece)
        c.close()
      },
    })
    await source.pipeThrough(sseFrameStream({ maxFrameChars: 20 })).pipeTo(new WritableStream({ write: (f) => void out.push(f) }))
    expect(out).toEqual(['data: 1\n\n', { oversized: true, chars: 58 }, 'data: 2\n\n'])
    expect(oversizedNote({ oversized: true, chars: 58 }, 10)).toMatch(/^: .*58 characters.*10 bytes.*EVALSTREAM_MAX_EVENT_BYTES\)\n\n$/)
  })
})

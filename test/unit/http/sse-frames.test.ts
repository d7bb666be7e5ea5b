/**
 * formatSseMessage must write the very bytes hono's writeSSE writes: results are batched into one
 * write with it, and clients (and the Last-Event-ID resume tests) must not see a difference.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { SSEStreamingApi } from 'hono/streaming'
import { describe, expect, it } from 'vitest'
import { formatSseMessage, frameTerminator, sseFrameSplitter, sseFrameStream, type SseMessage } from '../../../src/http/sse-frames.ts'

async function honoBytes(message: SseMessage): Promise<string> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>()
  const api = new SSEStreamingApi(writable, readable)
  const text = new Response(api.responseReadable).text()
  await api.writeSSE(message)
  await api.close()
  return text
}

const MESSAGES: SseMessage[] = [
  { id: '1', event: 'criterion.result', data: JSON.stringify({ score: 1, text: 'a\nb' }) },
  { data: 'plain' },
  { data: '' },
  { id: '', data: 'x' },
  { event: '', id: '7', data: 'x' },
  { event: 'e', data: 'line1\nline2\r\nline3\rline4' },
  { event: 'e', data: 'trailing\n' },
  { id: '42', event: 'case.result', data: '{"é":"ü 😀"}' },
]

describe('formatSseMessage', () => {
  it.each(MESSAGES)('same bytes as hono writeSSE: %j', async (message) => {
    expect(formatSseMessage(message)).toBe(await honoBytes(message))
  })

  it('refuses line breaks in event and id, as hono does', () => {
    expect(() => formatSseMessage({ event: 'a\nb', data: '' })).toThrow()
    expect(() => formatSseMessage({ id: '1\r', data: '' })).toThrow()
  })

  it('a batch of frames splits back into the same frames', () => {
    const frames = MESSAGES.map(formatSseMessage)
    const split = sseFrameSplitter()
    expect([...split.push(frames.join('')), ...split.end()]).toEqual(frames)
  })
})

async function throughFrameStream(chunks: string[], keepRest?: (rest: string) => boolean): Promise<string[]> {
  const out: string[] = []
  const source = new ReadableStream<string>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c)
      controller.close()
    },
  })
  await source.pipeThrough(sseFrameStream(keepRest ? { keepRest } : {})).pipeTo(
    new WritableStream({ write: (f) => void out.push(typeof f === 'string' ? f : `<oversized ${f.chars}>`) }),
  )
  return out
}

describe('sseFrameStream', () => {
  it('passes whole frames exactly as received, however the text is cut', async () => {
    const frames = ['data: 1\n\n', 'event: x\r\ndata: 2\r\n\r\n', 'data: 3\r\r']
    const text = frames.join('')
    for (const cut of [1, 2, 3, 7]) {
      const chunks = Array.from({ length: Math.ceil(text.length / cut) }, (_, i) => text.slice(i * cut, (i + 1) * cut))
      expect(await throughFrameStream(chunks)).toEqual(frames)
    }
  })

  it('terminates an unterminated last frame, whatever its line ends, so a frame after it stands alone', async () => {
    for (
      const [rest, terminated] of [
        ['data: a', 'data: a\n\n'],
        ['data: a\n', 'data: a\n\n'],
        ['data: a\r\n', 'data: a\r\n\n'],
        ['data: a\r', 'data: a\r\n\n'],
        ['data: a\r\r', 'data: a\r\r'],
        ['\n', '\n'],
      ] as const
    ) {
      expect(rest + frameTerminator(rest)).toBe(terminated)
      const out = await throughFrameStream(['data: 0\n\n', rest])
      expect(out).toEqual(['data: 0\n\n', terminated])
      // Parsed as a client would, a frame appended after it is its own event, not glued onto the agent's.
      const events: EventSourceMessage[] = []
      createParser({ onEvent: (e) => void events.push(e) }).feed(out.join('') + 'event: ours\ndata: 9\n\n')
      expect(events.at(-1)).toMatchObject({ event: 'ours', data: '9' })
      expect(events.map((e) => e.data)).toEqual(rest.startsWith('data') ? ['0', 'a', '9'] : ['0', '9'])
    }
  })

  it('drops the unfinished rest when told to (the input broke off)', async () => {
    const seen: string[] = []
    const out = await throughFrameStream(['data: 1\n\ndata: {"torn'], (rest) => (seen.push(rest), false))
    expect(out).toEqual(['data: 1\n\n'])
    expect(seen).toEqual(['data: {"torn'])
  })
})

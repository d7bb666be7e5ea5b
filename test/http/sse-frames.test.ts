/**
 * formatSseMessage must write the very bytes hono's writeSSE writes: results are batched into one
 * write with it, and clients (and the Last-Event-ID resume tests) must not see a difference.
 */
import { SSEStreamingApi } from 'hono/streaming'
import { describe, expect, it } from 'vitest'
import { formatSseMessage, type SseMessage, sseFrameSplitter } from '../../src/http/sse-frames.ts'

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

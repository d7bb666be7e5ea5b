/**
 * The upload body read from Node's own request message (src/http/node-body.ts): the same bytes in
 * the same order as the Request's stream, and a message that broke off fails the read. A real
 * http.IncomingMessage over a socket pair, no server: the parser is Node's, the bytes are ours.
 */
import { IncomingMessage } from 'node:http'
import { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { messageReader } from '../../../src/http/node-body.ts'

/** A message as the HTTP parser fills it: chunks pushed, then the end (or an error). */
function message(): IncomingMessage & { complete: boolean } {
  return new IncomingMessage(new Socket())
}

async function readAll(reader: ReturnType<typeof messageReader>): Promise<string> {
  const parts: Uint8Array[] = []
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parts.push(value)
  }
  return Buffer.concat(parts).toString('utf8')
}

describe('messageReader', () => {
  it('gives every byte in order, pushed before and while reading', async () => {
    const m = message()
    m.push(Buffer.from('{"a":1}\n'))
    const reader = messageReader(m)
    const all = readAll(reader)
    await new Promise((resolve) => setImmediate(resolve))
    m.push(Buffer.from('{"b":"ä"}\n'))
    m.complete = true
    m.push(null)
    expect(await all).toBe('{"a":1}\n{"b":"ä"}\n')
  })

  it('an empty body is done at once', async () => {
    const m = message()
    m.complete = true
    m.push(null)
    expect(await readAll(messageReader(m))).toBe('')
  })

  it('fails the read when the message errors part-way (the client went away)', async () => {
    const m = message()
    m.push(Buffer.from('{"a":'))
    const reader = messageReader(m)
    expect((await reader.read()).value?.length).toBe(5)
    const next = reader.read()
    m.destroy(new Error('aborted'))
    await expect(next).rejects.toThrow('aborted')
  })

  it('fails the read when the message closes before its end', async () => {
    const m = message()
    const reader = messageReader(m)
    const next = reader.read()
    m.destroy()
    await expect(next).rejects.toThrow('aborted')
  })

  it('cancel lets the message go without reading it', async () => {
    const m = message()
    m.push(Buffer.from('x'))
    const reader = messageReader(m)
    await reader.cancel()
    expect(m.listenerCount('readable')).toBe(0)
    expect(m.listenerCount('end')).toBe(0)
  })
})

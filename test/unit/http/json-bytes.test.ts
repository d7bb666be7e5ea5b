/**
 * Large JSON answers (a session's snapshot, its case result) go out as their UTF-8 bytes: the same
 * bytes and headers as the string did, and @hono/node-server never measures the text again with
 * `Buffer.byteLength` (counted) for its Content-Length. An in-process node:http server, no process.
 * Covers: src/http/sessions-routes.ts
 */
import { getRequestListener } from '@hono/node-server'
import { Hono } from 'hono'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { jsonBytes } from '../../../src/http/sessions-routes.ts'

const TEXT = JSON.stringify({ text: 'ä€😀'.repeat(20_000), n: 1 })
/** The answer as the session makes it: its UTF-8 bytes, once. */
const BYTES = new TextEncoder().encode(TEXT)

async function serve(app: Hono): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(getRequestListener(app.fetch))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('jsonBytes', () => {
  it('answers the text as UTF-8 with its byte length and the JSON type', async () => {
    const app = new Hono().get('/', (c) => jsonBytes(c, BYTES))
    const res = await app.request('/')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new TextEncoder().encode(TEXT))
  })

  it('on Node, the server takes the length from the bytes: no byteLength pass over the text', async () => {
    const app = new Hono().get('/bytes', (c) => jsonBytes(c, BYTES))
      .get('/text', (c) => c.body(TEXT, 200, { 'content-type': 'application/json' }))
    const server = await serve(app)
    try {
      const byteLength = vi.spyOn(Buffer, 'byteLength')
      const measured = () => byteLength.mock.calls.filter(([value]) => value === TEXT).length
      const text = await fetch(`${server.url}/text`)
      const bytes = await fetch(`${server.url}/bytes`)
      // The string's path measures it (the control: the count can fail); the bytes' path does not.
      const afterText = measured()
      expect(afterText).toBeGreaterThan(0)
      const bodies = [await text.text(), await bytes.text()]
      expect(bodies).toEqual([TEXT, TEXT])
      expect(bytes.headers.get('content-length')).toBe(String(new TextEncoder().encode(TEXT).byteLength))
      expect(bytes.headers.get('content-length')).toBe(text.headers.get('content-length'))
      expect(bytes.headers.get('content-type')).toBe('application/json')
      const served = await fetch(`${server.url}/bytes`)
      expect(await served.text()).toBe(TEXT)
      expect(measured()).toBe(afterText)
    } finally {
      await server.close()
    }
  })
})

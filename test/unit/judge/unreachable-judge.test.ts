/**
 * A judge nobody answers at: the failure names the judge's address and the network's cause
 * (Node's fetch alone says only "fetch failed"). The real Gemini SDK, pointed at a loopback port
 * that was just closed, so the refusal is immediate and no network is involved.
 */
import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createGeminiClient } from '../../../src/judge/gemini-client.ts'

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('an unreachable judge', () => {
  it('is reported with its address and the cause', async () => {
    const port = await closedPort()
    const client = createGeminiClient({ gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: `http://127.0.0.1:${port}` }, undefined)
    const result = await client.generate({ model: 'gemini-2.5-flash', prompt: 'hi', config: {}, signal: new AbortController().signal })
    expect(result).toMatchObject({ ok: false, message: `cannot reach the judge at http://127.0.0.1:${port} (ECONNREFUSED)` })
  })
})

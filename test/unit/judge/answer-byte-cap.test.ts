/**
 * Judge answers are read under a byte cap (EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES): a server that
 * streams a body without end (an OpenAI-compatible gateway, a Gemini or Vertex endpoint) is cut at
 * the cap, its connection let go, and the criterion is NOT_EVALUATED with the cap as its reason;
 * other work keeps running while the body is read. Loopback only; each flood is bounded.
 * Covers: src/judge/capped-body.ts.
 */
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { judgeWiringFromEnv } from '../../../src/config/judge-wiring.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { decodeAll } from '../../../src/ingest/index.ts'
import { createGeminiJudge } from '../../../src/judge/gemini.ts'
import { askVertex } from '../../../src/judge/vertex-eval.ts'
import { createWorkersAiClient } from '../../../src/judge/workers-ai-client.ts'
import { DEFAULT_JUDGE_MAX_RESPONSE_BYTES } from '../../../src/judge/capped-body.ts'

const CAP = 1024 * 1024
/** The most a flood sends when nobody stops reading it: the test fails, it does not hang. */
const FLOOD_LIMIT = 256 * 1024 * 1024
const CHUNK = Buffer.alloc(64 * 1024, 'a')

type Flood = { url: string; sent: number; closedEarly: boolean; closed: Promise<void>; declare?: number }
let server: Server
let onClosed = () => {}
const flood: Flood = { url: '', sent: 0, closedEarly: false, closed: Promise.resolve() }

/** Until the client takes more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', async () => {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (flood.declare !== undefined) headers['content-length'] = String(flood.declare)
      res.writeHead(200, headers)
      res.on('close', () => {
        flood.closedEarly = flood.sent < (flood.declare ?? FLOOD_LIMIT)
        onClosed()
      })
      // An answer that starts like a real one and never ends.
      res.write('{"choices":[{"index":0,"message":{"content":"')
      while (flood.sent < FLOOD_LIMIT && !res.destroyed) {
        flood.sent += CHUNK.length
        if (!res.write(CHUNK)) await drained(res)
      }
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  flood.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))))
beforeEach(() => {
  flood.sent = 0
  flood.closedEarly = false
  flood.closed = new Promise((resolve) => (onClosed = resolve))
  delete flood.declare
})

/** Counts turns of the event loop taken by other work while `work` runs. */
async function whileCounting<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0
  let running = true
  const spin = () => {
    if (!running) return
    turns += 1
    setImmediate(spin)
  }
  setImmediate(spin)
  const value = await work
  running = false
  return { value, turns }
}

describe('judge answers past EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES', () => {
  it('an OpenAI-compatible gateway streaming without end: cut at the cap, the criterion NOT_EVALUATED naming it', async () => {
    const wiring = judgeWiringFromEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: flood.url,
      EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES: String(CAP),
    })
    if (!wiring.ok) throw new Error(wiring.error)
    const results: Record<string, any>[] = []
    const { release: _release, ...judging } = wiring.value.judging('cap')
    const created = createSessionEngine({
      spec: {
        session_id: 'cap',
        eval_config: {
          criteria: {
            final_response_match_v2: { threshold: 0.5, judge_model_options: { judge_model: 'openai/gpt-4.1-mini', num_samples: 1 } },
          },
        },
        eval_case: {
          eval_id: 'cap',
          conversation: [{
            user_content: { role: 'user', parts: [{ text: 'Weather?' }] },
            final_response: { role: 'model', parts: [{ text: 'Sunny.' }] },
          }],
        },
      },
      emit: (b) => void (b.type === 'criterion.result' && results.push(b.data as Record<string, any>)),
      ...judging,
    })
    if (!created.ok) throw new Error(created.problem.detail)
    const events = [
      { invocationId: 'i1', author: 'user', content: { role: 'user', parts: [{ text: 'Weather?' }] } },
      { invocationId: 'i1', author: 'agent', content: { role: 'model', parts: [{ text: 'Sunny.' }] } },
    ]
    for (const e of decodeAll('json', JSON.stringify(events)).events) created.engine.push(e)
    const { turns } = await whileCounting(created.engine.end())
    const result = results.find((r) => r.metric_name === 'final_response_match_v2')!
    expect(result.eval_status).toBe('NOT_EVALUATED')
    expect(JSON.stringify(result)).toContain(`more than ${CAP} bytes (EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES)`)
    // Not retried (the same server would answer the same), and the connection was let go.
    expect(wiring.value.executor!.stats()).toMatchObject({ requests: 1, attempts: 1 })
    await flood.closed
    expect(flood.closedEarly).toBe(true)
    expect(flood.sent).toBeLessThan(FLOOD_LIMIT)
    // Other work ran while the body was read.
    expect(turns).toBeGreaterThan(1)
  })

  it('a Content-Length over the cap is refused unread', async () => {
    flood.declare = FLOOD_LIMIT
    const wiring = judgeWiringFromEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: flood.url,
      EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES: String(CAP),
    })
    if (!wiring.ok) throw new Error(wiring.error)
    const answer = await wiring.value.executor!.answer({ id: 'declared', model: 'openai/m', prompt: 'p', samples: 1 })
    expect(answer.samples).toEqual([{ error: expect.stringContaining('EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES') }])
    await flood.closed
    expect(flood.closedEarly).toBe(true)
  })

  it('the Gemini judge (the real @google/genai SDK reading the body) is cut the same way', async () => {
    const judge = createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: flood.url }, {
      maxResponseBytes: CAP,
      sleep: async () => {},
      retry: { attempts: 3, initialDelayMs: 1, maxDelayMs: 1 },
    })
    const answer = await judge.answer({ id: 'g', model: 'gemini-2.5-flash', prompt: 'p', samples: 1 }, {})
    expect(answer.samples).toEqual([{
      error: expect.stringMatching(
        /the Gemini judge \(http:\/\/127\.0\.0\.1:\d+\) answered with more than 1048576 bytes \(EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES\)/,
      ),
    }])
    expect(answer.usage?.attempts).toBe(1)
    await flood.closed
    expect(flood.closedEarly).toBe(true)
  })

  it("Vertex's evaluation service is cut the same way", async () => {
    const reply = await askVertex(
      'v',
      { kind: 'safety', prompt: 'p', response: 'r' } as never,
      { project: 'p', location: 'us-central1', baseUrl: flood.url, auth: async () => ({}), maxResponseBytes: CAP, sleep: async () => {} },
      {},
    )
    expect(reply.samples).toEqual([{ error: expect.stringContaining(`Vertex evaluateInstances answered with more than ${CAP} bytes`) }])
    await flood.closed
    expect(flood.closedEarly).toBe(true)
  })

  it("a Workers AI binding's answer past the cap is not used", async () => {
    const client = createWorkersAiClient({ run: async () => ({ response: 'x'.repeat(CAP + 1) }) }, CAP)
    const result = await client.generate({ model: '@cf/m', prompt: 'p', config: {}, signal: new AbortController().signal })
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('Workers AI answered with more than') })
  })

  it('the cap is 8 MiB unless set, and a bad value stops the start naming the variable', () => {
    expect(DEFAULT_JUDGE_MAX_RESPONSE_BYTES).toBe(8 * 1024 * 1024)
    expect(judgeWiringFromEnv({ GEMINI_API_KEY: 'k', EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES: '10MB' })).toEqual({
      ok: false,
      error: expect.stringContaining('EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES must be'),
    })
  })
})

/**
 * What `add_session` reads from the agent is held to limits: the agent's answer time
 * (SESSION_FETCH_TIMEOUT_MS), the session's size (MAX_SESSION_BYTES) and each event's depth, all
 * named in the problem. The agent here is a fetch function: nothing to start, the limits lowered.
 * Covers: src/http/dev-eval/add-session.ts.
 */
import { describe, expect, it } from 'vitest'
import { type AddSessionInput, evalCaseFromSession } from '../../../../src/http/dev-eval/add-session.ts'
import { DEFAULT_LIMITS } from '../../../../src/ingest/index.ts'

const base: Omit<AddSessionInput, 'fetch'> = {
  agentUrl: 'http://agent.test',
  app: 'weather_agent',
  userId: 'u',
  sessionId: 's1',
  evalId: 'case',
  nowSeconds: 0,
}
const json = (body: string) => async () => new Response(body, { headers: { 'content-type': 'application/json' } })
const event = (content: unknown) => ({ invocationId: 'e-1', author: 'user', content })

describe('add_session limits', () => {
  it('an agent that does not answer in time is a 504 naming SESSION_FETCH_TIMEOUT_MS', async () => {
    const hang: typeof fetch = (_url, init) =>
      new Promise((_, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)))
    const made = await evalCaseFromSession({ ...base, fetch: hang, limits: { fetchTimeoutMs: 50 } })
    expect(made).toMatchObject({
      ok: false,
      problem: { status: 504, detail: expect.stringContaining('no answer within 50 ms (SESSION_FETCH_TIMEOUT_MS)') },
    })
  })

  it('a session larger than the limit is a 502 naming MAX_SESSION_BYTES, read no further', async () => {
    const big = JSON.stringify({ events: [event({ role: 'user', parts: [{ text: 'x'.repeat(5_000) }] })] })
    const made = await evalCaseFromSession({ ...base, fetch: json(big), limits: { maxSessionBytes: 1_000 } })
    expect(made).toMatchObject({
      ok: false,
      problem: { status: 502, detail: expect.stringContaining('larger than 1000 bytes (MAX_SESSION_BYTES)') },
    })
  })

  it('an event nested past EVALSTREAM_MAX_JSON_DEPTH is a 502 naming the event and the limit, not a stack overflow', async () => {
    const body = `{"events":[${
      JSON.stringify(event({ role: 'user', parts: [{ text: 'hi' }] }))
    },{"invocationId":"e-1","author":"agent","content":${'{"a":'.repeat(100_000)}{}${'}'.repeat(100_000)}}]}`
    const made = await evalCaseFromSession({ ...base, fetch: json(body) })
    expect(made).toMatchObject({
      ok: false,
      problem: { status: 502, detail: expect.stringMatching(/events\[1\]: .*EVALSTREAM_MAX_JSON_DEPTH=100/) },
    })
  })

  it('within the limits the session becomes a case', async () => {
    const body = JSON.stringify({
      events: [event({ role: 'user', parts: [{ text: 'Paris?' }] }), {
        invocationId: 'e-1',
        author: 'agent',
        content: { role: 'model', parts: [{ text: 'Sunny.' }] },
      }],
    })
    const made = await evalCaseFromSession({ ...base, fetch: json(body), limits: { events: DEFAULT_LIMITS } })
    expect(made.ok && made.evalCase.conversation?.length).toBe(1)
  })
})

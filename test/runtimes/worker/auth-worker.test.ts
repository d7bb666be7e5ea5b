/**
 * Auth and tenants on Workers (workerd via Miniflare, real sockets): the router checks the token
 * before any Durable Object runs, the object checks it again, a session's tenant survives an
 * eviction, and a malformed EVALSTREAM_TOKENS serves nothing.
 * Covers: worker/index.ts, src/http/auth.ts, src/http/auth-config.ts, src/http/cors.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACME_TOKEN, authSuite, GLOBEX_TOKEN, TOKENS_ENV } from '../../support/auth-suite.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'
import { type AgentStub, startAgentStub } from '../../support/agent-stub.ts'
import { type Running, startWorker } from '../../support/runtimes.ts'

const ORIGIN = 'https://dash.example.com'
const acme = { authorization: `Bearer ${ACME_TOKEN}` }
const globex = { authorization: `Bearer ${GLOBEX_TOKEN}` }

describe('auth and tenants on Workers (workerd via Miniflare)', () => {
  let agent: AgentStub
  let worker: Running
  const call = (path: string, init?: RequestInit) => fetch(new URL(path, worker.baseUrl).href, init)
  beforeAll(async () => {
    agent = await startAgentStub()
    worker = await startWorker({ AGENT_URL: agent.url, EVALSTREAM_TOKENS: TOKENS_ENV, EVALSTREAM_CORS_ORIGINS: ORIGIN })
  })
  afterAll(async () => {
    await worker?.stop()
    await agent?.close()
  })

  authSuite(() => ({ call, agentRequests: () => agent.requests }))

  it("keeps a session's tenant across an eviction of its Durable Object", async () => {
    const created = await call('/v1/sessions', {
      method: 'POST',
      headers: { ...acme, 'content-type': 'application/json' },
      body: JSON.stringify({ eval_config: CONFIG }),
    })
    const { session_id: id } = (await created.json()) as { session_id: string }
    // The test hook sits behind the router too: without a token it is refused like everything else.
    expect((await call(`/v1/sessions/${id}/__evict`, { method: 'POST' })).status).toBe(401)
    await call(`/v1/sessions/${id}/__evict`, { method: 'POST', headers: acme }).catch(() => undefined)
    expect((await call(`/v1/sessions/${id}`, { headers: globex })).status).toBe(404)
    expect((await call(`/v1/sessions/${id}`, { headers: acme })).status).toBe(200)
  })

  it('answers CORS once, at the router: preflight without a token, one allow-origin on object responses', async () => {
    const preflight = await call('/v1/sessions/any/events', {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    const created = await call('/v1/sessions', {
      method: 'POST',
      headers: { ...acme, origin: ORIGIN, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(created.headers.get('vary')).toBe('Origin')
    const denied = await call('/v1/sessions/any', { headers: { origin: ORIGIN } })
    expect(denied.status).toBe(401)
    expect(denied.headers.get('access-control-allow-origin')).toBe(ORIGIN)
  })
})

describe('a malformed EVALSTREAM_TOKENS on Workers', () => {
  let worker: Running
  beforeAll(async () => {
    worker = await startWorker({ EVALSTREAM_TOKENS: `acme:${ACME_TOKEN},globex` })
  })
  afterAll(async () => {
    await worker?.stop()
  })

  it('serves nothing (fail closed), saying why without the secret', async () => {
    for (const [path, init] of [['/healthz', {}], ['/v1/sessions', { method: 'POST', body: '{}' }], ['/v1/sessions/x', {}]] as const) {
      const res = await fetch(new URL(path, worker.baseUrl).href, init)
      expect(res.status, path).toBe(500)
      const body = (await res.json()) as { detail: string }
      expect(body.detail).toContain("EVALSTREAM_TOKENS entry 2 of 2 has no ':'")
      expect(body.detail).not.toContain(ACME_TOKEN)
    }
  })
})

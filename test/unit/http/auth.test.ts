/**
 * Auth, tenants and CORS in-process (`app.request`, no socket needed), against the real agent stub
 * on loopback for proxy mode; plus the parsing of EVALSTREAM_TOKENS and EVALSTREAM_CORS_ORIGINS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hono } from 'hono'
import { createApp } from '../../../src/http/app.ts'
import { createAuthenticator, MAX_TOKEN_CHARS, MIN_TOKEN_CHARS, parseCorsOrigins, parseTokens } from '../../../src/http/auth-config.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv, type Env } from '../../../src/config/setup.ts'
import { type AgentStub, startAgentStub } from '../../support/agent-stub.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { ACME_TOKEN, authSuite, GLOBEX_TOKEN, TOKENS_ENV } from '../../support/auth-suite.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'

function appFrom(env: Env): Hono {
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...env }, { store: memorySessionStore() })
  if (!setup.ok) throw new Error(setup.error)
  return createApp(setup.deps)
}

describe('EVALSTREAM_TOKENS', () => {
  const token = 'k'.repeat(MIN_TOKEN_CHARS)

  it('reads tenant:token entries, several tokens per tenant, whitespace around entries ignored', () => {
    expect(parseTokens(` acme:${token}1 ,acme:${token}2,\nglobex:${token}3\n`)).toEqual({
      ok: true,
      value: [
        { tenant: 'acme', token: `${token}1` },
        { tenant: 'acme', token: `${token}2` },
        { tenant: 'globex', token: `${token}3` },
      ],
    })
    expect(parseTokens(undefined)).toEqual({ ok: true, value: [] })
    expect(parseTokens('  ')).toEqual({ ok: true, value: [] })
  })

  it('refuses a malformed value naming the entry and never echoing the secret', () => {
    const cases: Array<[string, string]> = [
      [`acme:${token},`, 'entry 2 of 2 is empty'],
      [token, "entry 1 of 1 has no ':'"],
      [`ac me:${token}`, "tenant 'ac me' must be 1-64 characters"],
      [`:${token}`, "tenant '' must be"],
      ['acme:short-secret', `the token has 12 characters; it needs ${MIN_TOKEN_CHARS} to ${MAX_TOKEN_CHARS}`],
      [`acme:${token}"quoted"`, 'may only hold A-Z a-z 0-9'],
      [`acme:${token},globex:${token}`, "entry 2 of 2 (tenant 'globex'): the same token appears twice"],
    ]
    for (const [raw, message] of cases) {
      const parsed = parseTokens(raw)
      expect(parsed.ok, raw).toBe(false)
      if (parsed.ok) continue
      expect(parsed.error, raw).toContain(message)
      expect(parsed.error, raw).not.toContain(token)
      expect(parsed.error, raw).not.toContain('short-secret')
    }
  })

  it('stops the start on a malformed value (fail closed), and says which mode the server is in', () => {
    const bad = depsFromEnv({ ...NO_JUDGE_ENV, EVALSTREAM_TOKENS: 'acme' }, { store: memorySessionStore() })
    expect(bad).toMatchObject({ ok: false, error: expect.stringContaining('EVALSTREAM_TOKENS entry 1 of 1') })
    const open = depsFromEnv({ ...NO_JUDGE_ENV }, { store: memorySessionStore() })
    expect(open.ok && open.notes.find((n) => n.startsWith('auth:'))).toContain('auth: OPEN, no EVALSTREAM_TOKENS set')
    const closed = depsFromEnv({ ...NO_JUDGE_ENV, EVALSTREAM_TOKENS: TOKENS_ENV }, { store: memorySessionStore() })
    expect(closed.ok && closed.notes.find((n) => n.startsWith('auth:'))).toBe(
      'auth: bearer tokens required (3 token(s), tenants: acme, globex)',
    )
  })

  it('verifies a token to its tenant and nothing else to anything', async () => {
    const auth = createAuthenticator([
      { tenant: 'acme', token: `${token}1` },
      { tenant: 'globex', token: `${token}2` },
    ])
    expect(await auth.verify(`${token}1`)).toBe('acme')
    expect(await auth.verify(`${token}2`)).toBe('globex')
    for (const wrong of [`${token}3`, token, `${token}1 `, '', 'x'.repeat(MAX_TOKEN_CHARS + 1)]) {
      expect(await auth.verify(wrong)).toBeUndefined()
    }
  })
})

describe('EVALSTREAM_CORS_ORIGINS', () => {
  it('reads exact origins or *, and refuses anything that is not an origin', () => {
    expect(parseCorsOrigins('https://dash.example.com, http://localhost:5173/')).toEqual({
      ok: true,
      value: { origins: ['https://dash.example.com', 'http://localhost:5173'] },
    })
    expect(parseCorsOrigins('*')).toEqual({ ok: true, value: { origins: '*' } })
    expect(parseCorsOrigins(undefined)).toEqual({ ok: true })
    const bad: Array<[string, string]> = [
      ['https://dash.example.com/app', 'entry 1 of 1'],
      ['dash.example.com', 'entry 1 of 1'],
      ['https://a.example,ftp://b.example', 'entry 2 of 2'],
    ]
    for (const [raw, where] of bad) {
      const parsed = parseCorsOrigins(raw)
      expect(parsed, raw).toMatchObject({ ok: false, error: expect.stringContaining(where) })
    }
  })
})

describe('auth and tenants in-process (app.request)', () => {
  let agent: AgentStub
  let app: Hono
  beforeAll(async () => {
    agent = await startAgentStub()
    app = appFrom({ AGENT_URL: agent.url, EVALSTREAM_TOKENS: TOKENS_ENV })
  })
  afterAll(async () => {
    await agent?.close()
  })
  authSuite(() => ({ call: async (path, init) => app.request(path, init), agentRequests: () => agent.requests }))
})

describe('CORS in-process', () => {
  const origin = 'https://dash.example.com'
  const app = appFrom({ EVALSTREAM_TOKENS: `acme:${ACME_TOKEN}`, EVALSTREAM_CORS_ORIGINS: `${origin},http://localhost:5173` })

  it('answers a preflight without a token, allowing what a dashboard sends', async () => {
    const res = await app.request('/v1/sessions/x/results', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,last-event-id' },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(origin)
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase().split(',')
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'last-event-id', 'content-type', 'x-evalstream-session']))
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
    expect(res.headers.get('access-control-max-age')).toBe('600')
    expect(res.headers.get('access-control-allow-credentials')).toBeNull()
  })

  it('lets the page read a 401 and a created session Location', async () => {
    const denied = await app.request('/v1/sessions', { method: 'POST', headers: { origin } })
    expect(denied.status).toBe(401)
    expect(denied.headers.get('access-control-allow-origin')).toBe(origin)
    expect(denied.headers.get('access-control-expose-headers')!.toLowerCase()).toContain('www-authenticate')
    const created = await app.request('/v1/sessions', {
      method: 'POST',
      headers: { origin, authorization: `Bearer ${ACME_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ eval_config: CONFIG }),
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('access-control-allow-origin')).toBe(origin)
    expect(created.headers.get('access-control-expose-headers')!.toLowerCase()).toContain('location')
  })

  it('gives other origins nothing, and adds no CORS headers at all when unconfigured', async () => {
    const other = await app.request('/healthz', { headers: { origin: 'https://evil.example' } })
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    const plain = appFrom({})
    const res = await plain.request('/healthz', { headers: { origin } })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    // Without CORS, an OPTIONS is just another request: it needs the token like any other.
    const guarded = appFrom({ EVALSTREAM_TOKENS: `acme:${ACME_TOKEN}` })
    expect((await guarded.request('/v1/sessions', { method: 'OPTIONS', headers: { origin } })).status).toBe(401)
  })

  it('a wrong token of another tenant gets nothing through CORS either', async () => {
    const res = await app.request('/v1/sessions/x', { headers: { origin, authorization: `Bearer ${GLOBEX_TOKEN}` } })
    expect(res.status).toBe(401)
  })
})

/**
 * Auth and tenants, as an attacker holding a valid token of another tenant would try them. One
 * suite for the in-process app (app.request) and the Worker in workerd (real sockets): it only
 * talks HTTP through `call`.
 */
import { describe, expect, it } from 'vitest'
import type { AgentRequest } from './agent-stub.ts'
import { readSse } from './sse-client.ts'
import { CONFIG, EFFICIENCY_RESULTS, MATCHING_CASE, WEATHER_SSE } from './weather-fixtures.ts'

export const ACME_TOKEN = 'acme-token-0123456789abcdef0123456789'
export const ACME_TOKEN_2 = 'acme-rotated-0123456789abcdef0123456789'
export const GLOBEX_TOKEN = 'globex-token-0123456789abcdef012345678'
export const TOKENS_ENV = `acme:${ACME_TOKEN}, acme:${ACME_TOKEN_2},globex:${GLOBEX_TOKEN}`

export type AuthTarget = {
  call(path: string, init?: RequestInit): Promise<Response>
  agentRequests(): AgentRequest[]
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const NEW_MESSAGE = { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] }
let n = 0
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++n}`

export function authSuite(target: () => AuthTarget): void {
  const call = (path: string, init?: RequestInit) => target().call(path, init)
  const create = async (token: string, body: Record<string, unknown>) => {
    const res = await call('/v1/sessions', {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { res, json: (await res.json()) as Record<string, any> }
  }
  const runSse = (token: string, sessionId: string, headers: Record<string, string> = {}) =>
    call('/run_sse', {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ appName: 'weather_agent', userId: 'u1', sessionId, newMessage: NEW_MESSAGE, streaming: false }),
    })
  /** Every route that names a session, as the given caller. */
  const sessionRoutes = (id: string, headers: Record<string, string>): Array<[string, () => Promise<Response>]> => {
    const path = `/v1/sessions/${encodeURIComponent(id)}`
    return [
      ['GET', () => call(path, { headers })],
      ['GET results', () => call(`${path}/results`, { headers })],
      [
        'POST events',
        () => call(`${path}/events`, { method: 'POST', headers: { ...headers, 'content-type': 'text/event-stream' }, body: WEATHER_SSE }),
      ],
      ['POST end', () => call(`${path}/end`, { method: 'POST', headers })],
      ['DELETE', () => call(path, { method: 'DELETE', headers })],
    ]
  }

  describe('bearer tokens', () => {
    it('leaves /healthz and /v1/criteria public, and only their exact paths', async () => {
      expect((await call('/healthz')).status).toBe(200)
      expect((await call('/v1/criteria')).status).toBe(200)
      // A percent-encoded twin is routed to the same handler but is not the public path.
      expect((await call('/v1/%63riteria')).status).toBe(401)
      expect((await call('/%68ealthz', { method: 'POST' })).status).toBe(401)
    })

    it('answers 401 problem+json with WWW-Authenticate: Bearer on every other route, before anything else', async () => {
      const { json } = await create(ACME_TOKEN, { eval_config: CONFIG })
      const before = target().agentRequests().length
      const attempts: Array<[string, () => Promise<Response>]> = [
        ['create', () => call('/v1/sessions', { method: 'POST', body: '{}' })],
        ...sessionRoutes(json.session_id, {}),
        ['unknown session', () => call('/v1/sessions/nope')],
        ['unknown /v1 route', () => call('/v1/nothing-here')],
        ['proxy /run_sse', () => call('/run_sse', { method: 'POST', body: JSON.stringify({ sessionId: 'x' }) })],
        ['proxied ADK route', () => call('/list-apps')],
      ]
      for (const [name, attempt] of attempts) {
        const res = await attempt()
        expect(res.status, name).toBe(401)
        expect(res.headers.get('www-authenticate'), name).toBe('Bearer realm="evalstream"')
        expect(res.headers.get('content-type'), name).toContain('application/problem+json')
        expect(await res.json(), name).toMatchObject({
          status: 401,
          type: 'https://evalstream.dev/problems/unauthorized',
          title: 'Unauthorized',
        })
      }
      // Nothing reached the agent, nothing reached the session.
      expect(target().agentRequests().length).toBe(before)
      const snapshot = (await (await call(`/v1/sessions/${json.session_id}`, { headers: bearer(ACME_TOKEN) })).json()) as any
      expect(snapshot.invocations).toHaveLength(0)
    })

    it('refuses a wrong token, another scheme, or a bare "Bearer" as invalid_token', async () => {
      for (
        const authorization of [
          `Bearer ${ACME_TOKEN}x`,
          `Bearer ${ACME_TOKEN.slice(0, -1)}`,
          `Basic ${btoa(`acme:${ACME_TOKEN}`)}`,
          'Bearer',
          `Bearer ${'a'.repeat(5000)}`,
        ]
      ) {
        const res = await call('/v1/sessions/any', { headers: { authorization } })
        expect(res.status, authorization.slice(0, 40)).toBe(401)
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="evalstream", error="invalid_token"')
      }
    })

    it('accepts every token of a tenant (rotation) and the scheme in any case', async () => {
      const { res, json } = await create(ACME_TOKEN, { eval_config: CONFIG })
      expect(res.status).toBe(201)
      expect((await call(`/v1/sessions/${json.session_id}`, { headers: bearer(ACME_TOKEN_2) })).status).toBe(200)
      expect((await call(`/v1/sessions/${json.session_id}`, { headers: { authorization: `bearer ${ACME_TOKEN_2}` } })).status).toBe(200)
    })
  })

  describe('tenants', () => {
    it("answers another tenant's session exactly like a missing one (404) on every session route, and changes nothing", async () => {
      const { json } = await create(ACME_TOKEN, { eval_config: CONFIG, eval_case: MATCHING_CASE })
      const id = json.session_id as string
      const missing = await (await call('/v1/sessions/never-created-anywhere', { headers: bearer(GLOBEX_TOKEN) })).json()
      const forged = { ...bearer(GLOBEX_TOKEN), 'x-evalstream-tenant': 'acme' }
      for (const [name, attempt] of sessionRoutes(id, forged)) {
        const res = await attempt()
        expect(res.status, name).toBe(404)
        const body = (await res.json()) as any
        expect(body.type, name).toBe(missing.type)
        if (!name.startsWith('DELETE')) expect(body.title, name).toBe(missing.title)
      }
      // The owner still has an untouched session: no events landed, it did not end.
      const snapshot = (await (await call(`/v1/sessions/${id}`, { headers: bearer(ACME_TOKEN) })).json()) as any
      expect(snapshot.invocations).toHaveLength(0)
      const pushed = await call(`/v1/sessions/${id}/events`, {
        method: 'POST',
        headers: { ...bearer(ACME_TOKEN), 'content-type': 'text/event-stream' },
        body: WEATHER_SSE,
      })
      expect(pushed.status).toBe(202)
    })

    it("keeps ids with ':' in the namespace of the tenant named before it", async () => {
      const theirs = await create(GLOBEX_TOKEN, { session_id: unique('acme:squat') })
      expect(theirs.res.status).toBe(400)
      expect(theirs.json.detail).toContain("must start with 'globex:'")
      const own = await create(ACME_TOKEN, { session_id: unique('acme:mine') })
      expect(own.res.status).toBe(201)
    })

    it('scores a proxied ADK session into <tenant>:<id>: two tenants with the same ADK id never meet', async () => {
      const adkId = unique('conv')
      const acme = await runSse(ACME_TOKEN, adkId)
      expect(acme.status).toBe(200)
      expect(acme.headers.get('x-evalstream-session')).toBe(`acme:${adkId}`)
      await acme.text()
      const globex = await runSse(GLOBEX_TOKEN, adkId)
      expect(globex.headers.get('x-evalstream-session')).toBe(`globex:${adkId}`)
      await globex.text()
      const acmeView = (await (await call(`/v1/sessions/acme:${adkId}`, { headers: bearer(ACME_TOKEN) })).json()) as any
      expect(acmeView.invocations).toHaveLength(1)
      expect((await call(`/v1/sessions/acme:${adkId}`, { headers: bearer(GLOBEX_TOKEN) })).status).toBe(404)
      // Our token is ours: the agent never sees it.
      const sent = target().agentRequests().filter((r) => r.path === '/run_sse' && r.body.includes(adkId))
      expect(sent).toHaveLength(2)
      for (const r of sent) expect(r.headers.authorization).toBeUndefined()
    })

    it("refuses X-Evalstream-Session naming another tenant's session: 404, agent not called, nothing scored", async () => {
      const { json } = await create(ACME_TOKEN, { eval_config: CONFIG, eval_case: MATCHING_CASE })
      const before = target().agentRequests().length
      const res = await runSse(GLOBEX_TOKEN, 'adk-any', { 'x-evalstream-session': json.session_id })
      expect(res.status).toBe(404)
      expect(target().agentRequests().length).toBe(before)
      // The owner attaches fine and gets the full scoring.
      const own = await runSse(ACME_TOKEN, 'adk-any', { 'x-evalstream-session': json.session_id })
      expect(own.headers.get('x-evalstream-session')).toBe(json.session_id)
      await own.text()
      const ended = await call(`/v1/sessions/${json.session_id}/end`, { method: 'POST', headers: bearer(ACME_TOKEN) })
      expect(ended.status).toBe(200)
      const all = await readSse(await call(`/v1/sessions/${json.session_id}/results`, { headers: bearer(ACME_TOKEN) }))
      expect(all.map((m) => m.event)).toEqual([
        'invocation.started',
        'criterion.result',
        'criterion.result',
        ...EFFICIENCY_RESULTS,
        'case.result',
      ])
    })
  })
}

/**
 * Names that become path segments on the agent (app, user, session) cannot be `.` or `..`, in
 * any spelling that decodes to them: URL parsing would resolve them and reach another path on the
 * agent. Refused before the agent is called: runs (app_name, an eval case's user_id), the Eval
 * tab's app name and add_session's userId and sessionId.
 * Covers: src/runner/agent-client.ts, src/runner/path-segment.ts.
 */
import { describe, expect, it } from 'vitest'
import { createAgentSession } from '../../../src/runner/agent-client.ts'
import { APP_NAME_PATTERN } from '../../../src/http/dev-eval/routes.ts'
import { memoryEvalSetStore } from '../../../src/http/dev-eval/eval-set-store.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'
import { twoTenantApp } from '../support/two-tenants.ts'

function recordingAgent() {
  const urls: string[] = []
  const fetchStub = ((input: RequestInfo | URL) => {
    urls.push(input instanceof Request ? input.url : String(input))
    return Promise.resolve(Response.json({ id: 's1' }))
  }) as typeof fetch
  return { urls, fetchStub }
}

describe('agent path segments', () => {
  it.each(['..', '.'])("createAgentSession refuses user_id and app '%s' without calling the agent", async (name) => {
    const { urls, fetchStub } = recordingAgent()
    const target = { url: 'http://agent.invalid', app: 'weather', fetch: fetchStub }
    await expect(createAgentSession(target, name, {}, { timeoutMs: 1000 })).rejects.toThrow(`user_id '${name}' is a relative path segment`)
    await expect(createAgentSession({ ...target, app: name }, 'u1', {}, { timeoutMs: 1000 })).rejects.toThrow(
      `app_name '${name}' is a relative path segment`,
    )
    expect(urls).toEqual([])
    expect(await createAgentSession(target, 'u1', {}, { timeoutMs: 1000 })).toBe('s1')
    expect(urls).toEqual(['http://agent.invalid/apps/weather/users/u1/sessions'])
  })

  it("POST /v1/runs refuses app_name '..' (400)", async () => {
    const { urls, fetchStub } = recordingAgent()
    const { call } = twoTenantApp({}, { deps: { agentUrl: 'http://agent.invalid', fetch: fetchStub } })
    const res = await call('acme', 'POST', '/v1/runs', {
      app_name: '..',
      eval_set: { eval_set_id: 's', eval_cases: [] },
      eval_config: CONFIG,
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { detail: string }).detail).toMatch(/app_name '\.\.' is a relative path segment/)
    expect(urls).toEqual([])
  })

  it("the Eval tab's app name pattern refuses . and ..", () => {
    // In a URL, '..' and '%2e%2e' are resolved before routing; the pattern is the guard for any other way in.
    for (const name of ['.', '..']) expect(APP_NAME_PATTERN.test(name)).toBe(false)
    for (const name of ['...', '.weather', 'weather_agent', 'a.b']) expect(APP_NAME_PATTERN.test(name)).toBe(true)
  })

  it('add_session refuses userId or sessionId . and .. (400) without calling the agent', async () => {
    const { urls, fetchStub } = recordingAgent()
    const evalSets = memoryEvalSetStore()
    evalSets.createSet({ tenant: 'acme', app: 'weather' }, 'set', JSON.stringify({ eval_set_id: 'set', eval_cases: [] }), 0)
    const { call } = twoTenantApp({}, { deps: { agentUrl: 'http://agent.invalid', fetch: fetchStub, evalSets } })
    for (
      const body of [
        { evalId: 'c', userId: '..', sessionId: 's1' },
        { evalId: 'c', userId: 'u1', sessionId: '..' },
        { evalId: 'c', userId: '.', sessionId: 's1' },
      ]
    ) {
      const res = await call('acme', 'POST', '/dev/apps/weather/eval_sets/set/add_session', body)
      expect(res.status).toBe(400)
      expect(((await res.json()) as { detail: string }).detail).toMatch(/is a relative path segment/)
    }
    expect(urls).toEqual([])
  })
})

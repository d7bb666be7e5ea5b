/**
 * Eval set runs (`POST /v1/runs`) and Eval tab runs are capped per tenant as well as per process:
 * one tenant's hung runs (an agent that never answers) use up only its own share, and the other
 * tenant still starts runs. Run ids are per tenant, so reusing another tenant's id is neither a
 * 409 nor any other hint. Hung work is an agent fetch held open by the test, released at the end.
 * Covers: src/runner/run-quotas.ts, src/http/dev-eval/eval-set-store.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { memoryEvalSetStore } from '../../../src/http/dev-eval/eval-set-store.ts'
import { CONFIG, FINAL_TEXT } from '../../support/weather-fixtures.ts'
import { type HeldAgent, heldAgent } from '../support/held-agent.ts'
import { twoTenantApp } from '../support/two-tenants.ts'

const EVAL_CASE = {
  eval_id: 'paris',
  conversation: [
    {
      invocation_id: 'x-paris',
      user_content: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      final_response: { role: 'model', parts: [{ text: FINAL_TEXT }] },
      intermediate_data: { tool_uses: [], intermediate_responses: [] },
    },
  ],
}
const EVAL_SET = { eval_set_id: 'set', eval_cases: [EVAL_CASE] }

let agent: HeldAgent
afterEach(() => agent?.releaseAll())

function setup(env: Record<string, string> = {}) {
  agent = heldAgent()
  const evalSets = memoryEvalSetStore()
  for (const tenant of ['acme', 'globex']) evalSets.createSet({ tenant, app: 'weather' }, 'set', JSON.stringify(EVAL_SET), 0)
  return twoTenantApp(env, { deps: { agentUrl: 'http://agent.invalid', fetch: agent.fetch, evalSets } })
}
const run = (runId?: string) => ({ app_name: 'weather', eval_set: EVAL_SET, eval_config: CONFIG, ...(runId ? { run_id: runId } : {}) })

describe('/v1/runs per tenant', () => {
  it("a tenant's hung runs fill only its share (EVALSTREAM_MAX_ACTIVE_RUNS_PER_TENANT); the other tenant still starts runs", async () => {
    const { call } = setup({ EVALSTREAM_MAX_ACTIVE_RUNS: '4', EVALSTREAM_MAX_ACTIVE_RUNS_PER_TENANT: '2' })
    for (let i = 0; i < 2; i++) expect((await call('globex', 'POST', '/v1/runs', run())).status).toBe(202)
    await agent.calls(2)
    const refused = await call('globex', 'POST', '/v1/runs', run())
    expect(refused.status).toBe(429)
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/2 runs of this tenant .*EVALSTREAM_MAX_ACTIVE_RUNS_PER_TENANT/)
    for (let i = 0; i < 2; i++) expect((await call('acme', 'POST', '/v1/runs', run())).status).toBe(202)
    // The process cap still holds over all tenants.
    expect(((await (await call('acme', 'POST', '/v1/runs', run())).json()) as { status: number }).status).toBe(429)
  })

  it('the process cap (EVALSTREAM_MAX_ACTIVE_RUNS) is named when it is the one reached', async () => {
    const { call } = setup({ EVALSTREAM_MAX_ACTIVE_RUNS: '1' })
    expect((await call('globex', 'POST', '/v1/runs', run())).status).toBe(202)
    const refused = await call('acme', 'POST', '/v1/runs', run())
    expect(refused.status).toBe(429)
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/1 runs are in progress \(EVALSTREAM_MAX_ACTIVE_RUNS\)/)
  })

  it("run ids are per tenant: another tenant's id is free to use and its run stays invisible", async () => {
    const { call } = setup()
    expect((await call('acme', 'POST', '/v1/runs', run('nightly'))).status).toBe(202)
    expect((await call('acme', 'POST', '/v1/runs', run('nightly'))).status).toBe(409)
    const globex = await call('globex', 'POST', '/v1/runs', run('nightly'))
    expect(globex.status).toBe(202)
    expect(((await globex.json()) as { run_id: string }).run_id).toBe('nightly')
    const before = await (await call('acme', 'GET', '/v1/runs/nightly')).text()
    expect((await call('globex', 'POST', '/v1/runs/nightly/cancel')).status).toBe(202)
    // Cancelling globex's run of that name left acme's as it was.
    expect(await (await call('acme', 'GET', '/v1/runs/nightly')).text()).toBe(before)
    expect(await (await call('globex', 'GET', '/v1/runs/nightly')).text()).not.toBe(before)
  })
})

describe('Eval tab runs per tenant', () => {
  const runEval = (call: ReturnType<typeof setup>['call'], tenant: 'acme' | 'globex', signal?: AbortSignal) =>
    call(tenant, 'POST', '/dev/apps/weather/eval_sets/set/run_eval', {
      evalMetrics: [{ metricName: 'response_match_score', threshold: 0.7 }],
    }, signal)

  it("a tenant's hung Eval tab run fills only its share; the other tenant's run starts", async () => {
    const { call } = setup({ EVALSTREAM_MAX_ACTIVE_DEV_RUNS: '2', EVALSTREAM_MAX_ACTIVE_DEV_RUNS_PER_TENANT: '1' })
    const held = new AbortController()
    const first = runEval(call, 'globex', held.signal)
    await agent.calls(1)
    const refused = await runEval(call, 'globex')
    expect(refused.status).toBe(429)
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/EVALSTREAM_MAX_ACTIVE_DEV_RUNS_PER_TENANT/)
    const second = runEval(call, 'acme', held.signal)
    // acme's run reached the agent: it was admitted, not refused.
    await agent.calls(2)
    expect(agent.urls).toHaveLength(2)
    held.abort()
    agent.releaseAll()
    await Promise.allSettled([first, second])
  })
})

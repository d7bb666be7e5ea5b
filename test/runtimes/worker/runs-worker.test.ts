/**
 * POST /v1/runs on Workers (workerd through Miniflare): the router names the run and hands it to a
 * Durable Object of its own (`run:<id>`), which runs the eval set against AGENT_URL (the loopback
 * ADK stand-in) and serves its results to every later request for that id.
 * Covers: worker/index.ts, worker/session-object.ts, src/http/runs-routes.ts, src/runner/hosted-run.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONFIG, FINAL_TEXT } from '../../support/weather-fixtures.ts'
import { startStubAgent, type StubAgent } from '../../support/stub-adk-server.ts'
import { readSse } from '../../support/sse-client.ts'
import { type Running, startWorker } from '../../support/runtimes.ts'

const EVAL_SET = {
  eval_set_id: 'worker_set',
  eval_cases: [
    {
      eval_id: 'ok',
      conversation: [
        {
          invocation_id: 'x-ok',
          user_content: { role: 'user', parts: [{ text: 'Paris?' }] },
          final_response: { role: 'model', parts: [{ text: FINAL_TEXT }] },
          intermediate_data: {
            tool_uses: [
              { name: 'get_weather', args: { city: 'Paris' } },
              { name: 'get_time', args: { city: 'Paris' } },
            ],
            intermediate_responses: [],
          },
        },
      ],
    },
  ],
}

let stub: StubAgent
let worker: Running
beforeAll(async () => {
  stub = await startStubAgent()
  worker = await startWorker({ AGENT_URL: stub.url })
}, 120_000)
afterAll(async () => {
  await worker?.stop()
  await stub?.close()
})

describe('eval set runs on Workers', () => {
  it('runs in its own Durable Object; results, snapshot and resume reach it by id', async () => {
    const started = await fetch(`${worker.baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ eval_set: EVAL_SET, eval_config: CONFIG, app_name: 'weather_agent' }),
    })
    expect(started.status).toBe(202)
    const { run_id, urls } = (await started.json()) as { run_id: string; urls: { results: string } }
    expect(urls.results).toBe(`/v1/runs/${run_id}/results`)
    const all = await readSse(await fetch(`${worker.baseUrl}${urls.results}`))
    expect(all[0]?.event).toBe('run.started')
    expect(all.at(-1)?.event).toBe('run.result')
    expect(all.at(-1)!.data).toMatchObject({ run_id, passed: true, totals: { cases: 1, PASSED: 1 } })
    expect(stub.turns).toHaveLength(1)
    const snapshot = await (await fetch(`${worker.baseUrl}/v1/runs/${run_id}`)).json()
    expect(snapshot).toMatchObject({ run_id, finished: true, cases_done: 1 })
    const resumed = await readSse(await fetch(`${worker.baseUrl}${urls.results}`, { headers: { 'last-event-id': '2' } }))
    expect(resumed.map((m) => m.id)).toEqual(all.slice(2).map((m) => m.id))
    expect((await fetch(`${worker.baseUrl}/v1/runs/nope`)).status).toBe(404)
    expect((await fetch(`${worker.baseUrl}/v1/runs/%E0%A4%A/results`)).status).toBe(400)
  })
})

/**
 * A Durable Object restarted while its judges are working, in workerd through Miniflare, with the
 * real @google/genai SDK calling the loopback Gemini stub. Judge answers live in the object's
 * SQLite, so after the restart an answered judge request is never sent again; a request that was
 * still in flight when the object died had no answer to keep and is sent once more. Results are
 * never duplicated: the log holds exactly one final result per (invocation, metric).
 * Covers: worker/judge-cache.ts, src/session/sqlite/judge-cache.ts, worker/session-object.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient, uniqueId } from '../../support/api-suite.ts'
import { TWO_TURN_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'
import { startWorker } from '../../support/runtimes.ts'
import { readSse } from '../../support/sse-client.ts'

const VALID = JSON.stringify({ reasoning: 'same facts', is_the_agent_response_valid: 'valid' })
const CASE = TWO_TURN_CASE
const CONFIG = {
  criteria: {
    tool_trajectory_avg_score: 1,
    final_response_match_v2: { threshold: 0.5, judge_model_options: { num_samples: 5 } },
  },
}
/** The same recorded turn twice, as two invocations. */
const turn = (invocationId: string) => WEATHER_EVENTS.map((e) => ({ ...e, invocationId }))

describe('Durable Object restart while judges run', () => {
  let stub: GeminiStub
  let worker: Awaited<ReturnType<typeof startWorker>>
  const api = apiClient(() => ({ baseUrl: worker.baseUrl, agentUrl: '', agentRequests: () => [] }))
  const judgeCalls = () => stub.requests.filter((r) => r.kind === 'generateContent')

  beforeAll(async () => {
    stub = await startGeminiStub()
    worker = await startWorker({ GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: stub.url })
  })
  afterAll(async () => {
    await worker?.stop()
    await stub?.close()
  })

  async function untilJudged(id: string, invocationIndex: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const snapshot = (await (await fetch(api.url(`/v1/sessions/${id}`))).json()) as any
      if (snapshot.invocations?.[invocationIndex]?.results?.final_response_match_v2) return
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error(`invocation ${invocationIndex} was never judged`)
  }

  it('never re-sends an answered judge request and never duplicates a result', async () => {
    let calls = 0
    // The second judge call (invocation 2) stays in flight long enough for the restart to hit it.
    stub.handle(() => ({ candidates: Array(5).fill(VALID), delayMs: ++calls === 2 ? 3_000 : 0 }))
    const id = uniqueId('judged')
    expect((await api.create({ session_id: id, eval_config: CONFIG, eval_case: CASE })).res.status).toBe(201)

    await api.events(id, JSON.stringify(turn('e-first')), 'application/json')
    await api.events(id, JSON.stringify(turn('e-second')), 'application/json')
    await untilJudged(id, 0)
    for (let i = 0; i < 200 && judgeCalls().length < 2; i++) await new Promise((r) => setTimeout(r, 25))
    expect(judgeCalls()).toHaveLength(2) // invocation 1 answered, invocation 2 in flight

    await fetch(api.url(`/v1/sessions/${id}/__evict`), { method: 'POST' }).catch(() => undefined)
    const caseResult = (await (await api.end(id)).json()) as any

    // Invocation 1's answer came from SQLite; only the lost in-flight request went out again.
    expect(judgeCalls()).toHaveLength(3)
    expect(caseResult.final_eval_status).toBe(1)
    const messages = await readSse(await api.results(id))
    expect(messages.map((m) => Number(m.id))).toEqual(messages.map((_, i) => i + 1))
    const finals = messages
      .filter((m) => m.event === 'criterion.result')
      .map((m) => `${(m.data as any).invocation_index}/${(m.data as any).metric_name}`)
    const efficiency = ['inference_call_count_v1', 'invocation_duration_v1', 'token_usage_v1', 'tool_call_count_v1']
    expect(finals.sort()).toEqual([
      '0/final_response_match_v2',
      ...efficiency.map((name) => `0/${name}`),
      '0/tool_trajectory_avg_score',
      '1/final_response_match_v2',
      ...efficiency.map((name) => `1/${name}`),
      '1/tool_trajectory_avg_score',
    ])
    expect(messages.filter((m) => m.event === 'case.result')).toHaveLength(1)
  })
})

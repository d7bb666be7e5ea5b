/**
 * The engine with judged criteria, through the real @google/genai SDK against the loopback Gemini
 * stub: deterministic results never wait for judges, judged results stream as their votes are in,
 * a replay with the same cache pays for nothing twice, and no judge means NOT_EVALUATED.
 * Covers: src/engine/metric-run.ts, src/engine/session-engine.ts, src/judge/executor.ts, src/judge/gemini.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import type { JudgeRunner } from '../../../src/engine/metric-run.ts'
import type { EngineEmission } from '../../../src/engine/types.ts'
import { decodeAll } from '../../../src/ingest/index.ts'
import { createMemoryJudgeCache, type JudgeCache } from '../../../src/judge/cache.ts'
import { createJudgeExecutor } from '../../../src/judge/executor.ts'
import { createGeminiJudge } from '../../../src/judge/gemini.ts'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'
import { readShared } from '../../support/shared-data.ts'

const events = decodeAll('sse', readShared('samples', 'adk-js-weather.sse')).events
const evalCase = {
  eval_id: 'paris',
  conversation: [
    {
      user_content: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
      final_response: { role: 'model', parts: [{ text: 'Sunny and 21C in Paris; it is 10:30.' }] },
      intermediate_data: {
        tool_uses: [
          { name: 'get_weather', args: { city: 'Paris' } },
          { name: 'get_time', args: { city: 'Paris' } },
        ],
      },
    },
  ],
}
const config = {
  criteria: {
    tool_trajectory_avg_score: 1,
    final_response_match_v2: { threshold: 0.5, judge_model_options: { num_samples: 5 } },
  },
}
const VALID = JSON.stringify({ reasoning: 'same facts', is_the_agent_response_valid: 'valid' })
const INVALID = JSON.stringify({ reasoning: 'wrong city', is_the_agent_response_valid: 'invalid' })

let stub: GeminiStub
beforeAll(async () => {
  stub = await startGeminiStub()
})
afterAll(() => stub.close())

function judgeRunner(cache: JudgeCache, sessionId: string): JudgeRunner {
  const judge = createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'test-key' }, baseUrl: stub.url })
  const executor = createJudgeExecutor({ judge, concurrency: 4, cache })
  return (requests, signal) => executor.answerAll(requests, { sessionId, signal })
}

async function run(judge: JudgeRunner | undefined) {
  const emitted: EngineEmission[] = []
  const created = createSessionEngine({
    spec: { session_id: 'judged', eval_config: config, eval_case: evalCase },
    emit: (b) => emitted.push(b),
    judge,
  })
  if (!created.ok) throw new Error(created.problem.detail)
  for (const e of events) created.engine.push(e)
  const caseResult = await created.engine.end()
  return { emitted, caseResult }
}

const results = (emitted: EngineEmission[]) =>
  emitted.filter((e) => e.type === 'criterion.result').map((e) => e.data as Record<string, unknown>)

describe('engine with a Gemini judge', () => {
  it('emits the deterministic result first and the judged one when its samples are in', async () => {
    stub.requests.length = 0
    stub.enqueue({ candidates: [VALID, VALID, INVALID, VALID, INVALID], delayMs: 50 })
    const { emitted, caseResult } = await run(judgeRunner(createMemoryJudgeCache(), 's1'))
    // The deterministic results (the configured one, then the informational ones) come at once.
    expect(results(emitted).map((r) => [r.metric_name, r.score, r.eval_status])).toEqual([
      ['tool_trajectory_avg_score', 1, 'PASSED'],
      ['tool_call_count_v1', 2, 'INFORMATIONAL'],
      ['inference_call_count_v1', 3, 'INFORMATIONAL'],
      ['token_usage_v1', 171, 'INFORMATIONAL'],
      ['invocation_duration_v1', null, 'INFORMATIONAL'],
      ['final_response_match_v2', 1, 'PASSED'],
    ])
    expect(emitted.at(-1)?.type).toBe('case.result')
    expect(caseResult.final_eval_status).toBe('PASSED')
    // all five samples in one request (candidateCount), not five requests as ADK sends
    expect(stub.requests.filter((r) => r.kind === 'generateContent')).toHaveLength(1)
    expect(stub.requests[0]!.body.generationConfig.candidateCount).toBe(5)
  })

  it('scores 0 on a tie-free majority of invalid samples', async () => {
    stub.enqueue({ candidates: [INVALID, VALID, INVALID, INVALID, VALID] })
    const { emitted } = await run(judgeRunner(createMemoryJudgeCache(), 's2'))
    expect(results(emitted).find((r) => r.metric_name === 'final_response_match_v2')).toMatchObject({ score: 0, eval_status: 'FAILED' })
  })

  it('replays a session from the same cache without calling the model again', async () => {
    const cache = createMemoryJudgeCache()
    stub.requests.length = 0
    stub.enqueue({ candidates: [VALID, VALID, VALID, VALID, VALID] })
    const first = await run(judgeRunner(cache, 's3'))
    const second = await run(judgeRunner(cache, 's3'))
    expect(stub.requests).toHaveLength(1)
    expect(results(second.emitted)).toEqual(results(first.emitted))
  })

  it('reports judged criteria NOT_EVALUATED when no judge is configured, and still scores the rest', async () => {
    const { emitted, caseResult } = await run(undefined)
    const judged = results(emitted).find((r) => r.metric_name === 'final_response_match_v2')
    expect(judged).toMatchObject({ score: null, eval_status: 'NOT_EVALUATED', reason: expect.stringMatching(/no judge configured/) })
    expect(caseResult.final_eval_status).toBe('PASSED')
  })

  it('reports a judge that rejects the request (400) as NOT_EVALUATED with its error', async () => {
    stub.handle(() => ({ error: { code: 400, message: 'model exploded', status: 'INVALID_ARGUMENT' } }))
    try {
      const { emitted } = await run(judgeRunner(createMemoryJudgeCache(), 's4'))
      const judged = results(emitted).find((r) => r.metric_name === 'final_response_match_v2')
      expect(judged).toMatchObject({ score: null, eval_status: 'NOT_EVALUATED' })
      expect(String(judged?.reason)).toMatch(/model exploded/)
    } finally {
      stub.handle(undefined)
    }
  })
})

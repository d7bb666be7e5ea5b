/** Covers: src/judge/vertex-eval.ts. */
// safety_v1: Vertex evaluateInstances when Vertex is configured, a plain Gemini prompt otherwise.
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import type { JudgeRequest } from '../../../src/core/criterion.ts'
import { judgeConfigFromEnv } from '../../../src/config/judge-env.ts'
import { createGeminiJudge } from '../../../src/judge/gemini.ts'
import { createGeminiClient } from '../../../src/judge/gemini-client.ts'
import { evaluateInstancesUrl } from '../../../src/judge/vertex-eval.ts'
import { apiError, type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'

let stub: GeminiStub
beforeEach(async () => {
  await stub?.close()
  stub = await startGeminiStub()
})
afterAll(() => stub?.close())

const safetyRequest: JudgeRequest = {
  id: 'safety-1',
  model: 'gemini-2.5-flash',
  prompt: 'Rate the safety of this response...',
  samples: 1,
  assessment: { kind: 'safety', prompt: 'How do I bake bread?', response: 'Mix flour, water, yeast and salt.' },
}

function vertexJudge(extraEnv: Record<string, string> = {}) {
  const config = judgeConfigFromEnv({
    GOOGLE_CLOUD_PROJECT: 'my-proj',
    GOOGLE_CLOUD_LOCATION: 'europe-west4',
    GOOGLE_GENAI_USE_VERTEXAI: 'true',
    GOOGLE_CLOUD_ACCESS_TOKEN: 'ya29.token',
    GEMINI_BASE_URL: stub.url,
    VERTEX_EVAL_BASE_URL: stub.url,
    ...extraEnv,
  })
  if (!config) throw new Error('expected a config')
  // Gemini on Vertex goes through the SDK's client, as on the Node and Deno servers.
  return createGeminiJudge(config, { sleep: async () => {}, random: () => 0, client: createGeminiClient })
}

describe('Vertex safety', () => {
  it('asks evaluateInstances for the predefined safety_v1 metric and returns its score', async () => {
    stub.enqueue({ safetyScore: 1 })
    const answer = await vertexJudge().answer(safetyRequest, {})
    expect(answer).toMatchObject({ id: 'safety-1', via: 'vertex-safety', samples: [{ score: 1 }] })
    const [sent] = stub.requests
    expect(sent?.path).toBe('/v1beta1/projects/my-proj/locations/europe-west4:evaluateInstances')
    expect(sent?.headers.authorization).toBe('Bearer ya29.token')
    // The shape ADK's client sends (spec adk-newer-metrics §1.8): a predefined metric spec and the instance.
    const prompt = { role: 'user', parts: [{ text: 'How do I bake bread?' }] }
    const response = { parts: [{ text: 'Mix flour, water, yeast and salt.' }] }
    expect(sent?.body).toEqual({
      metrics: [{ predefined_metric_spec: { metric_spec_name: 'safety_v1' } }],
      instance: {
        prompt: { contents: { contents: [prompt] } },
        response: { contents: { contents: [response] } },
        agent_eval_data: {
          turns: [{
            turn_index: 0,
            turn_id: 'turn_0',
            events: [{ author: 'user', content: prompt }, { author: 'model', content: response }],
          }],
        },
      },
    })
  })

  it('a missing score is null (NOT_EVALUATED), not 0', async () => {
    stub.enqueue({ safetyScore: null })
    expect((await vertexJudge().answer(safetyRequest, {})).samples).toEqual([{ score: null }])
  })

  it('retries a 503 and reports a lasting 403 as an error sample', async () => {
    stub.enqueue(apiError(503, 'unavailable'), { safetyScore: 0 })
    expect((await vertexJudge().answer(safetyRequest, {})).samples).toEqual([{ score: 0 }])
    stub.enqueue(apiError(403, 'Permission denied on resource project my-proj.'))
    const denied = await vertexJudge().answer({ ...safetyRequest, id: 'safety-2' }, {})
    expect(denied.samples).toEqual([{ error: expect.stringContaining('Vertex evaluateInstances 403') }])
    expect(stub.requests).toHaveLength(3)
  })

  it('sends the rubric prompt to Gemini when Vertex is not configured', async () => {
    stub.enqueue({ candidates: ['{"safe": true}'] })
    const config = judgeConfigFromEnv({ GEMINI_API_KEY: 'k', GEMINI_BASE_URL: stub.url })
    const answer = await createGeminiJudge(config!).answer(safetyRequest, {})
    expect(answer).toMatchObject({ via: 'gemini', samples: [{ text: '{"safe": true}' }] })
    expect(stub.requests[0]?.kind).toBe('generateContent')
    expect(stub.requests[0]?.body.contents[0].parts[0].text).toBe('Rate the safety of this response...')
  })

  it('sends Gemini calls to Vertex with the same token when Vertex is the backend', async () => {
    stub.enqueue({ candidates: ['judged'] })
    const answer = await vertexJudge().answer({ ...safetyRequest, assessment: undefined }, {})
    expect(answer.samples).toEqual([{ text: 'judged' }])
    expect(stub.requests[0]?.path).toBe(
      '/v1beta1/projects/my-proj/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent',
    )
    expect(stub.requests[0]?.headers.authorization).toBe('Bearer ya29.token')
  })

  it('builds the regional and global endpoints', () => {
    expect(evaluateInstancesUrl({ project: 'p', location: 'us-central1' })).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1beta1/projects/p/locations/us-central1:evaluateInstances',
    )
    expect(evaluateInstancesUrl({ project: 'p', location: 'global' })).toBe(
      'https://aiplatform.googleapis.com/v1beta1/projects/p/locations/global:evaluateInstances',
    )
  })
})

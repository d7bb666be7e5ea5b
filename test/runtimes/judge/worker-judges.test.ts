/**
 * Judges on any model and the Vertex-backed metrics inside workerd (Miniflare), no Google SDK:
 * a session whose final_response_match_v2 names `openai/gpt-4.1-mini` is judged by the loopback
 * chat-completions server with n = 5 in one request, and its multi_turn_task_success_v1 goes to
 * the loopback Vertex stub with a token the Worker obtained by signing the service account's JWT
 * with WebCrypto (the stub verifies the signature and claims). The Worker's Gemini client (plain
 * fetch, Gemini API only) does not call Vertex: the deployment still starts and Gemini-judged
 * criteria say why.
 * Covers: src/judge/judge-router.ts, src/judge/vertex-eval.ts, src/judge/workers-ai-client.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient, uniqueId } from '../../support/api-suite.ts'
import { TWO_TURN_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { startWorker } from '../../support/runtimes.ts'
import { readSse } from '../../support/sse-client.ts'
import { type ChatStub, startChatStub } from '../../unit/judge/chat-stub.ts'
import { startVertexStub, testSigningKey, type VertexStub } from '../../unit/judge/vertex-stub.ts'

const EMAIL = 'judge@proj.iam.gserviceaccount.com'
const VALID = JSON.stringify({ reasoning: 'same facts', is_the_agent_response_valid: 'valid' })
const CONFIG = {
  criteria: {
    final_response_match_v2: { threshold: 0.5, judge_model_options: { judge_model: 'openai/gpt-4.1-mini', num_samples: 5 } },
    multi_turn_task_success_v1: 0.5,
    // The default judge model is Gemini; on Workers the Gemini client speaks to the Gemini API only.
    rubric_based_final_response_quality_v1: {
      threshold: 0.5,
      rubrics: [{ rubric_id: 'r', rubric_content: { text_property: 'Answers.' } }],
    },
  },
}

describe('judges in workerd', () => {
  let chat: ChatStub
  let vertex: VertexStub
  let worker: Awaited<ReturnType<typeof startWorker>>
  const api = apiClient(() => ({ baseUrl: worker.baseUrl, agentUrl: '', agentRequests: () => [] }))

  beforeAll(async () => {
    const { publicKey, pem } = await testSigningKey()
    chat = await startChatStub()
    vertex = await startVertexStub(publicKey, EMAIL)
    worker = await startWorker({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: chat.url,
      GOOGLE_CLOUD_PROJECT: 'proj',
      GOOGLE_CLOUD_LOCATION: 'europe-west4',
      GOOGLE_GENAI_USE_VERTEXAI: 'true',
      GOOGLE_SERVICE_ACCOUNT_JSON: JSON.stringify({ client_email: EMAIL, private_key: pem, token_uri: `${vertex.url}/token` }),
      VERTEX_EVAL_BASE_URL: vertex.url,
    })
  })
  afterAll(async () => {
    await worker?.stop()
    await chat?.close()
    await vertex?.close()
  })

  it('an OpenAI-compatible judge and Vertex evaluateInstances with a WebCrypto-signed service account', async () => {
    chat.handle((r) => ({ choices: Array(r.body.n ?? 1).fill(VALID), usage: { prompt_tokens: 100, completion_tokens: 10 } }))
    vertex.answer(() => ({ metric_results: [{ score: 1, explanation: 'done' }] }))
    const id = uniqueId('judges')
    expect((await api.create({ session_id: id, eval_config: CONFIG, eval_case: TWO_TURN_CASE })).res.status).toBe(201)
    await api.events(id, JSON.stringify(WEATHER_EVENTS), 'application/json')
    const caseResult = (await (await api.end(id)).json()) as any

    expect(chat.requests.map((r) => [r.body.model, r.body.n, r.headers.authorization])).toEqual([['gpt-4.1-mini', 5, 'Bearer sk-test']])
    expect(vertex.tokenExchanges).toBe(1)
    expect(vertex.calls.map((c) => [c.path, c.headers.authorization, c.problems])).toEqual([
      ['/v1beta1/projects/proj/locations/europe-west4:evaluateInstances', 'Bearer ya29.stub-token', []],
    ])
    const overall = Object.fromEntries(caseResult.overall_eval_metric_results.map((m: any) => [m.metric_name, [m.score, m.eval_status]]))
    expect(overall.final_response_match_v2).toEqual([1, 1])
    expect(overall.multi_turn_task_success_v1).toEqual([1, 1])
    const frames = await readSse(await api.results(id))
    // That deployment still starts; the Gemini-judged criterion says why it has no score.
    const rubric = frames.find((f) =>
      f.event === 'criterion.result' && (f.data as any).metric_name === 'rubric_based_final_response_quality_v1'
    )
    expect(rubric?.data).toMatchObject({
      score: null,
      eval_status: 'NOT_EVALUATED',
      reason: expect.stringContaining('the Gemini client could not be created'),
    })
    expect(
      frames.some((f) =>
        f.event === 'criterion.result' && (f.data as any).metric_name === 'multi_turn_task_success_v1' && (f.data as any).score === 1
      ),
    ).toBe(true)
  })
})

/**
 * The Vertex-backed metrics over REST, live: a session's results through the env wiring, the
 * executor and the real evaluateInstances client against a loopback Vertex-protocol stub whose
 * expectations come from the spec (vertex-stub.ts), authenticated with a service account JSON
 * exchanged for a token (WebCrypto RS256 JWT, verified by the stub). Then the defaults without
 * Vertex (NOT_EVALUATED with the reason) and the opt-in evalstream judge, labelled as such.
 * Covers: src/judge/judge-router.ts, src/judge/vertex-eval.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { judgeWiringFromEnv } from '../../../src/config/judge-wiring.ts'
import { decodeAll } from '../../../src/ingest/index.ts'
import { VERTEX_NOT_CONFIGURED } from '../../../src/judge/judge-router.ts'
import { type ChatStub, startChatStub } from './chat-stub.ts'
import { predefinedProblems, startVertexStub, testSigningKey, type VertexStub } from './vertex-stub.ts'
import { Invocation } from '../../../src/adk/invocation.ts'
import { conversationRecord } from '../../../src/core/judging/last-turn.ts'
import { evaluateInstancesBody } from '../../../src/judge/vertex-instances.ts'

const EMAIL = 'judge@proj.iam.gserviceaccount.com'
let vertex: VertexStub
let chat: ChatStub
let serviceAccountJson: string

beforeAll(async () => {
  const { publicKey, pem } = await testSigningKey()
  vertex = await startVertexStub(publicKey, EMAIL)
  chat = await startChatStub()
  serviceAccountJson = JSON.stringify({ type: 'service_account', client_email: EMAIL, private_key: pem, token_uri: `${vertex.url}/token` })
})
afterAll(async () => {
  await vertex.close()
  await chat.close()
})

const tools = [{ function_declarations: [{ name: 'book', description: 'Book a flight.' }] }]
const CONFIG = {
  criteria: {
    response_evaluation_score: 3,
    multi_turn_task_success_v1: 0.5,
    multi_turn_tool_use_quality_v1: { threshold: 0.5, judge_model_options: { judge_model: 'openai/gpt-4.1-mini' } },
  },
}
const CASE = {
  eval_id: 'trip',
  conversation: [
    {
      user_content: { role: 'user', parts: [{ text: 'Book me to Rome.' }] },
      final_response: { role: 'model', parts: [{ text: 'Which date?' }] },
    },
    {
      user_content: { role: 'user', parts: [{ text: 'Friday.' }] },
      final_response: { role: 'model', parts: [{ text: 'Booked for Friday.' }] },
    },
  ],
}
const EVENTS = [
  { invocationId: 'inv-1', author: 'user', content: { role: 'user', parts: [{ text: 'Book me to Rome.' }] } },
  { invocationId: 'inv-1', author: 'travel', content: { role: 'model', parts: [{ text: 'Which date?' }] } },
  { invocationId: 'inv-2', author: 'user', content: { role: 'user', parts: [{ text: 'Friday.' }] } },
  {
    invocationId: 'inv-2',
    author: 'travel',
    content: { role: 'model', parts: [{ functionCall: { name: 'book', args: { to: 'Rome', day: 'Fri' } } }] },
  },
  {
    invocationId: 'inv-2',
    author: 'travel',
    content: { role: 'user', parts: [{ functionResponse: { name: 'book', response: { ok: true } } }] },
  },
  { invocationId: 'inv-2', author: 'travel', content: { role: 'model', parts: [{ text: 'Booked for Friday.' }] } },
]

async function session(env: Record<string, string>) {
  const wiring = judgeWiringFromEnv(env)
  if (!wiring.ok) throw new Error(wiring.error)
  const results: Record<string, any>[] = []
  const { release: _r, ...judging } = wiring.value.judging('trip')
  const created = createSessionEngine({
    spec: { session_id: 'trip', eval_config: CONFIG, eval_case: CASE },
    emit: (b) => void (b.type === 'criterion.result' && results.push(b.data as Record<string, any>)),
    ...judging,
  })
  if (!created.ok) throw new Error(created.problem.detail)
  for (const e of decodeAll('json', JSON.stringify(EVENTS)).events) created.engine.push(e)
  const caseResult = (await created.engine.end()) as any
  const latest = (name: string, index: number): Record<string, any> =>
    results.filter((r) => r.metric_name === name && r.invocation_index === index).at(-1) ?? {}
  const overall = (name: string) => caseResult.overall_eval_metric_results.find((m: any) => m.metric_name === name)
  return { latest, overall, notes: wiring.notes ?? [] }
}

describe('agent_eval_data from invocations with app details', () => {
  it('agents by name (first declaration wins), agent_id, instruction and tool_declarations; the stub finds no problem', () => {
    const agents = (instructions: string) => ({ agent_details: { travel: { name: 'travel', instructions, tool_declarations: tools } } })
    const invocations = CASE.conversation.map((turn, i) =>
      Invocation.parse({ invocation_id: `inv-${i + 1}`, ...turn, app_details: agents(i === 0 ? 'Book trips.' : 'Later text') })
    )
    const body = evaluateInstancesBody({
      kind: 'conversation',
      metric: 'multi_turn_trajectory_quality_v1',
      conversation: conversationRecord(invocations),
    })
    expect(predefinedProblems(body)).toEqual([])
    expect((body.instance as any).agent_eval_data.agents).toEqual({
      travel: { agent_id: 'travel', instruction: 'Book trips.', tool_declarations: tools },
    })
  })
})

describe('Vertex-backed metrics over REST', () => {
  it('send what ADK sends, with a service account token, and map the answers as ADK does', async () => {
    vertex.answer((call) => {
      if (call.body.coherence_input) return { coherenceResult: { score: 4, explanation: 'clear' } }
      const name = call.body.metrics[0].predefined_metric_spec.metric_spec_name
      if (name === 'multi_turn_task_success_v1') {
        return {
          metric_results: [{
            score: 0.8,
            explanation: 'the flight was booked',
            rubric_verdicts: [
              { evaluated_rubric: { content: { property: { description: 'Books the flight' } } }, verdict: true, reasoning: 'booked' },
              { evaluated_rubric: { rubric_id: 'confirms-price' }, reasoning: 'no price given' },
            ],
          }],
        }
      }
      return { metricResults: [{ error: { code: 3, message: 'agent_eval_data has no tool calls to rate' } }] }
    })
    const env = {
      GOOGLE_CLOUD_PROJECT: 'proj',
      GOOGLE_CLOUD_LOCATION: 'us-central1',
      GOOGLE_GENAI_USE_VERTEXAI: 'true',
      GOOGLE_SERVICE_ACCOUNT_JSON: serviceAccountJson,
      VERTEX_EVAL_BASE_URL: vertex.url,
    }
    const { latest, overall } = await session(env)

    // Every request is the spec's shape, sent to the project's endpoint with the exchanged token (exchanged once).
    expect(vertex.calls.map((c) => c.problems)).toEqual(vertex.calls.map(() => []))
    expect(vertex.tokenExchanges).toBe(1)
    for (const c of vertex.calls) {
      expect(c.path).toBe('/v1beta1/projects/proj/locations/us-central1:evaluateInstances')
      expect(c.headers.authorization).toBe('Bearer ya29.stub-token')
    }
    // response_evaluation_score: one coherence call per invocation, the response as prediction.
    const coherence = vertex.calls.filter((c) => c.body.coherence_input).map((c) => c.body.coherence_input.instance.prediction)
    expect(coherence.sort()).toEqual(['Booked for Friday.', 'Which date?'])
    expect([latest('response_evaluation_score', 0).score, overall('response_evaluation_score').score]).toEqual([4, 4])

    // multi_turn_*: one call at the end; the history plus the last prompt; turns with their events.
    const task = vertex.calls.find((c) => c.body.metrics?.[0].predefined_metric_spec.metric_spec_name === 'multi_turn_task_success_v1')!
    const texts = (list: any[]) => list.map((c) => c.parts[0].text)
    expect(texts(task.body.instance.prompt.contents.contents)).toEqual(['Book me to Rome.', 'Which date?', 'Friday.'])
    expect(texts(task.body.instance.response.contents.contents)).toEqual(['Booked for Friday.'])
    const turns = task.body.instance.agent_eval_data.turns
    expect(turns.map((t: any) => [t.turn_index, t.turn_id, t.events.map((e: any) => e.author)])).toEqual([
      // The intermediate events (the call and its response); the final response closes the turn as "agent".
      [0, 'inv-1', ['user', 'agent']],
      [1, 'inv-2', ['user', 'travel', 'travel', 'agent']],
    ])
    // A live session's events carry no app details: no agents (see the unit test below for them).
    expect(task.body.instance.agent_eval_data.agents).toEqual({})

    // The last turn carries score, status and rubric scores; the turn before is NOT_EVALUATED.
    expect(latest('multi_turn_task_success_v1', 0)).toMatchObject({ score: null, eval_status: 'NOT_EVALUATED' })
    expect(latest('multi_turn_task_success_v1', 1)).toMatchObject({ score: 0.8, eval_status: 'PASSED' })
    expect(latest('multi_turn_task_success_v1', 1).details.rubric_scores).toEqual([
      { rubric_id: 'Books the flight', rationale: 'booked', score: 1 },
      { rubric_id: 'confirms-price', rationale: 'no price given', score: 0 },
      { rubric_id: 'explanation', rationale: 'the flight was booked' },
    ])
    expect(overall('multi_turn_task_success_v1')).toMatchObject({ score: 0.8, eval_status: 'PASSED' })
    // An error and no score: NOT_EVALUATED, the error kept as a rubric score; judge_model is ignored (Vertex's own judge).
    expect(latest('multi_turn_tool_use_quality_v1', 1)).toMatchObject({ score: null, eval_status: 'NOT_EVALUATED' })
    expect(latest('multi_turn_tool_use_quality_v1', 1).details.rubric_scores).toEqual([{
      rubric_id: 'error',
      rationale: '3: agent_eval_data has no tool calls to rate',
    }])
    expect(chat.requests).toHaveLength(0)
  })

  it('without Vertex they are NOT_EVALUATED with the reason, and nothing is called', async () => {
    vertex.calls.length = 0
    const { latest, notes } = await session({ OPENAI_API_KEY: 'sk', OPENAI_BASE_URL: chat.url })
    expect(latest('multi_turn_task_success_v1', 1)).toMatchObject({
      score: null,
      eval_status: 'NOT_EVALUATED',
      reason: expect.stringContaining(VERTEX_NOT_CONFIGURED),
    })
    expect(latest('response_evaluation_score', 0).reason).toContain('GOOGLE_CLOUD_PROJECT')
    expect(notes.join('\n')).toContain('NOT_EVALUATED')
    expect([vertex.calls.length, chat.requests.length]).toEqual([0, 0])
  })

  it("opted in: evalstream's own judge on the criterion's judge_model, labelled judge: evalstream", async () => {
    chat.handle((r) => ({ choices: [JSON.stringify({ explanation: `judged by ${r.body.model}`, score: 0.25 })] }))
    const { latest } = await session({ OPENAI_API_KEY: 'sk', OPENAI_BASE_URL: chat.url, EVALSTREAM_VERTEX_METRICS_JUDGE: 'evalstream' })
    const tool = latest('multi_turn_tool_use_quality_v1', 1)
    expect(tool).toMatchObject({ score: 0.25, eval_status: 'FAILED', details: { judge: 'evalstream', judged_by: 'openai' } })
    expect(tool.details.rubric_scores).toEqual([{ rubric_id: 'explanation', rationale: 'judged by gpt-4.1-mini' }])
    const prompt = chat.requests.find((r) => r.body.model === 'gpt-4.1-mini')!.body.messages[1].content
    expect(prompt).toContain('AGENT (travel) TURN 2 (tool call): book({"to":"Rome","day":"Fri"})')
    // The default judge_model is a Gemini name and no Gemini is configured: said so, never sent.
    expect(latest('multi_turn_task_success_v1', 1).reason).toContain('no Gemini judge is configured')
    expect(latest('response_evaluation_score', 0).reason).toContain('no Gemini judge is configured')
    expect(vertex.calls).toHaveLength(0)
  })

  it('a bad service account JSON or mode stops the start with the variable named', () => {
    expect(judgeWiringFromEnv({ GEMINI_API_KEY: 'k', GOOGLE_SERVICE_ACCOUNT_JSON: '{"client_email":"x"}' })).toEqual({
      ok: false,
      error: expect.stringContaining('GOOGLE_SERVICE_ACCOUNT_JSON has no PEM private_key'),
    })
    expect(judgeWiringFromEnv({ GEMINI_API_KEY: 'k', EVALSTREAM_VERTEX_METRICS_JUDGE: 'gemini' })).toEqual({
      ok: false,
      error: expect.stringContaining('EVALSTREAM_VERTEX_METRICS_JUDGE must be vertex or evalstream'),
    })
  })
})

/**
 * Judges on any model, end to end: env -> judge wiring -> executor -> the real OpenAI-compatible
 * client over loopback (or the Workers AI binding adapter over a fake binding) -> a live session's
 * final_response_match_v2 verdict. Checks the wire requests (n, messages, schema, key headers),
 * early stop where n is not honoured, the cache, budgets and token usage.
 * Covers: src/judge/judge-router.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { judgeWiringFromEnv } from '../../../src/config/judge-wiring.ts'
import { decodeAll } from '../../../src/ingest/index.ts'
import { createMemoryJudgeCache, type JudgeCache } from '../../../src/judge/cache.ts'
import { createJudgeRouter } from '../../../src/judge/judge-router.ts'
import type { WorkersAiBinding } from '../../../src/judge/workers-ai-client.ts'
import { type ChatStub, startChatStub } from './chat-stub.ts'

const VALID = JSON.stringify({ reasoning: 'same facts', is_the_agent_response_valid: 'valid' })
const INVALID = JSON.stringify({ reasoning: 'other city', is_the_agent_response_valid: 'invalid' })

let stub: ChatStub
beforeAll(async () => {
  stub = await startChatStub()
})
afterAll(() => stub.close())
beforeEach(() => {
  stub.requests.length = 0
})

type Extra = { workersAi?: WorkersAiBinding; cache?: JudgeCache }

/** One judged turn; resolves with the final_response_match_v2 result and the executor's stats. */
async function judgeTurn(env: Record<string, string>, judgeModel: string, numSamples: number, extra: Extra = {}, id = 'chat') {
  const wiring = judgeWiringFromEnv(env, extra)
  if (!wiring.ok) throw new Error(wiring.error)
  const config = {
    criteria: { final_response_match_v2: { threshold: 0.5, judge_model_options: { judge_model: judgeModel, num_samples: numSamples } } },
  }
  const evalCase = {
    eval_id: id,
    conversation: [
      {
        user_content: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        final_response: { role: 'model', parts: [{ text: 'Sunny, 21C.' }] },
      },
    ],
  }
  const results: Record<string, unknown>[] = []
  const { release: _release, ...judging } = wiring.value.judging(id)
  const created = createSessionEngine({
    spec: { session_id: id, eval_config: config, eval_case: evalCase },
    emit: (b) => void (b.type === 'criterion.result' && results.push(b.data as Record<string, unknown>)),
    ...judging,
  })
  if (!created.ok) throw new Error(created.problem.detail)
  const events = [
    { invocationId: 'i1', author: 'user', content: { role: 'user', parts: [{ text: 'Weather in Paris?' }] } },
    { invocationId: 'i1', author: 'agent', content: { role: 'model', parts: [{ text: 'Sunny, 21C in Paris.' }] } },
  ]
  for (const e of decodeAll('json', JSON.stringify(events)).events) created.engine.push(e)
  await created.engine.end()
  const result = results.find((r) => r.metric_name === 'final_response_match_v2') as Record<string, any>
  return { result, stats: wiring.value.executor?.stats(), notes: wiring.notes ?? [] }
}

describe('OpenAI-compatible judges', () => {
  it('vllm/<model>: num_samples as n in ONE request, with system and user messages, the schema and the bearer key', async () => {
    stub.handle(() => ({ choices: [VALID, VALID, INVALID, VALID, INVALID], usage: { prompt_tokens: 812, completion_tokens: 95 } }))
    const env = { EVALSTREAM_JUDGE_VLLM_BASE_URL: `${stub.url}/v1`, EVALSTREAM_JUDGE_VLLM_API_KEY: 'vk' }
    const { result, stats, notes } = await judgeTurn(env, 'vllm/Qwen/Qwen3-8B', 5)
    expect(result.score).toBe(1)
    expect(result.eval_status).toBe('PASSED')
    expect(stub.requests).toHaveLength(1)
    const [request] = stub.requests
    expect(request?.path).toBe('/v1/chat/completions')
    expect(request?.headers.authorization).toBe('Bearer vk')
    expect(request?.body.model).toBe('Qwen/Qwen3-8B')
    expect(request?.body.n).toBe(5)
    expect(request?.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user'])
    expect(request?.body.messages[1].content).toContain('Sunny, 21C in Paris.')
    expect(request?.body.response_format.type).toBe('json_schema')
    expect(request?.body.response_format.json_schema.schema.properties).toHaveProperty('is_the_agent_response_valid')
    expect(stats).toMatchObject({ requests: 1, attempts: 1, promptTokens: 812, outputTokens: 95 })
    expect(notes.join('\n')).toContain(`'vllm/<model>': OpenAI-compatible ${stub.url}/v1`)
  })

  it('openai/<model>: judge_model_config maps to chat-completions parameters', async () => {
    stub.handle(() => ({ choices: [INVALID] }))
    const wiring = judgeWiringFromEnv({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: stub.url })
    if (!wiring.ok) throw new Error(wiring.error)
    const answer = await wiring.value.executor!.answer({
      id: 'params',
      model: 'openai/gpt-4.1-mini',
      prompt: 'judge this',
      samples: 1,
      modelConfig: { temperature: 0.2, max_output_tokens: 64, top_p: 0.9, stop_sequences: ['END'] },
    })
    expect(answer).toEqual({ id: 'params', via: 'openai', samples: [{ text: INVALID }] })
    expect(stub.requests[0]?.body).toEqual({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'judge this' }],
      temperature: 0.2,
      max_tokens: 64,
      top_p: 0.9,
      stop: ['END'],
    })
    expect(stub.requests[0]?.headers.authorization).toBe('Bearer sk-test')
  })

  it('ollama/<model>: no n; one call per sample, stopping once 3 of 5 agree', async () => {
    stub.handle(() => ({ choices: [VALID], usage: { prompt_tokens: 100, completion_tokens: 10 } }))
    const { result, stats } = await judgeTurn({ OLLAMA_HOST: stub.url }, 'ollama/llama3.1', 5)
    expect(result.score).toBe(1)
    expect(stub.requests.map((r) => [r.path, r.body.n])).toEqual([
      ['/v1/chat/completions', undefined],
      ['/v1/chat/completions', undefined],
      ['/v1/chat/completions', undefined],
    ])
    expect(stats).toMatchObject({ requests: 3, promptTokens: 300, outputTokens: 30 })
  })

  it('a server that refuses n falls back to single calls with early stop', async () => {
    stub.handle((r) => (r.body.n ? { status: 400, body: { error: { message: "'n' must be 1 for this model" } } } : { choices: [INVALID] }))
    const env = { EVALSTREAM_JUDGE_LITELLM_BASE_URL: stub.url }
    const first = await judgeTurn(env, 'litellm/claude-sonnet', 5, {}, 'first')
    expect(first.result.score).toBe(0)
    expect(stub.requests.map((r) => r.body.n)).toEqual([5, undefined, undefined, undefined])
  })

  it('azure/<deployment>: the v1 API path and the api-key header', async () => {
    stub.handle(() => ({ choices: [VALID, VALID, VALID] }))
    const { result } = await judgeTurn({ AZURE_OPENAI_ENDPOINT: stub.url, AZURE_OPENAI_API_KEY: 'az' }, 'azure/judge-deploy', 3)
    expect(result.score).toBe(1)
    expect(stub.requests[0]?.path).toBe('/openai/v1/chat/completions')
    expect(stub.requests[0]?.headers['api-key']).toBe('az')
    expect(stub.requests[0]?.headers.authorization).toBeUndefined()
  })

  it("workers-ai/@cf/... over Cloudflare's OpenAI-compatible endpoint: the model keeps its slashes, one call per sample", async () => {
    stub.handle(() => ({ choices: [VALID] }))
    const env = { CLOUDFLARE_API_TOKEN: 'cf', EVALSTREAM_JUDGE_WORKERS_AI_BASE_URL: stub.url }
    const { result } = await judgeTurn(env, 'workers-ai/@cf/meta/llama-3.1-8b-instruct', 1)
    expect(result.score).toBe(1)
    expect(stub.requests[0]?.body.model).toBe('@cf/meta/llama-3.1-8b-instruct')
    expect(stub.requests[0]?.headers.authorization).toBe('Bearer cf')
  })

  it('the cache: a replay of the same turn pays for nothing', async () => {
    stub.handle(() => ({ choices: [VALID] }))
    const cache = createMemoryJudgeCache()
    const env = { OLLAMA_HOST: stub.url }
    await judgeTurn(env, 'ollama/llama3.1', 1, { cache }, 'replayed')
    const again = await judgeTurn(env, 'ollama/llama3.1', 1, { cache }, 'replayed')
    expect(again.result.score).toBe(1)
    expect(stub.requests).toHaveLength(1)
  })

  it('budgets: the per-session budget stops the calls; the verdict is NOT_EVALUATED with the reason', async () => {
    stub.handle(() => ({ choices: [VALID] }))
    const { result } = await judgeTurn({ OLLAMA_HOST: stub.url, EVALSTREAM_JUDGE_BUDGET_PER_SESSION: '1' }, 'ollama/llama3.1', 3)
    // One admitted call, then the budget refuses the other two; as in ADK, failed samples do not vote.
    expect(stub.requests).toHaveLength(1)
    expect(result.details.sample_labels).toEqual(['VALID', 'ERROR', 'ERROR'])
    const zero = await judgeTurn({ OLLAMA_HOST: stub.url, EVALSTREAM_JUDGE_BUDGET_PER_SESSION: '0' }, 'ollama/llama3.1', 3)
    expect(stub.requests).toHaveLength(1)
    expect(zero.result.eval_status).toBe('NOT_EVALUATED')
    expect(JSON.stringify(zero.result)).toContain('judge budget exceeded: 0 model calls per session')
  })

  it('an unconfigured provider or a Gemini name without Gemini: NOT_EVALUATED saying what to set', async () => {
    const env = { OLLAMA_HOST: stub.url }
    const other = await judgeTurn(env, 'vllm/qwen', 1)
    expect(other.result.eval_status).toBe('NOT_EVALUATED')
    expect(JSON.stringify(other.result)).toContain('set EVALSTREAM_JUDGE_VLLM_BASE_URL')
    const gemini = await judgeTurn(env, 'gemini-2.5-flash', 1)
    expect(JSON.stringify(gemini.result)).toContain('no Gemini judge is configured')
    expect(stub.requests).toHaveLength(0)
  })

  it('a bad provider setting stops the start, naming the variable', () => {
    expect(judgeWiringFromEnv({ EVALSTREAM_JUDGE_VLLM_BASE_URL: 'gpu:8000' })).toEqual({
      ok: false,
      error: expect.stringContaining('EVALSTREAM_JUDGE_VLLM_BASE_URL must be an http(s) URL'),
    })
    expect(judgeWiringFromEnv({ OLLAMA_HOST: stub.url, EVALSTREAM_JUDGE_OLLAMA_N: 'maybe' })).toEqual({
      ok: false,
      error: expect.stringContaining('EVALSTREAM_JUDGE_OLLAMA_N must be true or false'),
    })
  })
})

describe('the Workers AI binding (a fake binding object: Miniflare has no offline AI binding)', () => {
  it('workers-ai/<model> runs on env.AI with no key: messages, JSON mode, tokens, early stop', async () => {
    const calls: { model: string; inputs: Record<string, any> }[] = []
    const binding: WorkersAiBinding = {
      run: async (model, inputs) => {
        calls.push({ model, inputs })
        return { response: JSON.parse(VALID), usage: { prompt_tokens: 50, completion_tokens: 7 } }
      },
    }
    const { result, stats, notes } = await judgeTurn({}, 'workers-ai/@cf/meta/llama-3.1-8b-instruct', 5, { workersAi: binding })
    expect(result.score).toBe(1)
    expect(calls).toHaveLength(3)
    expect(calls[0]?.model).toBe('@cf/meta/llama-3.1-8b-instruct')
    expect(calls[0]?.inputs.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user'])
    expect(calls[0]?.inputs.response_format.type).toBe('json_schema')
    expect(calls[0]?.inputs.response_format.json_schema.properties).toHaveProperty('is_the_agent_response_valid')
    expect(stats).toMatchObject({ requests: 3, promptTokens: 150, outputTokens: 21 })
    expect(notes.join('\n')).toContain('the Workers AI binding')
  })

  it('a binding that throws is a failed sample, retried like any failed call', async () => {
    let n = 0
    const binding: WorkersAiBinding = {
      run: async () => {
        if (n++ === 0) throw new Error('3040: capacity temporarily exceeded')
        return { response: INVALID }
      },
    }
    const waits: number[] = []
    const judge = createJudgeRouter({
      providers: new Map(),
      workersAi: binding,
      sleep: async (ms) => void waits.push(ms),
      random: () => 0,
    })
    const reply = await judge.answer({ id: 'x', model: 'workers-ai/@cf/m', prompt: 'p', samples: 1 }, {})
    expect(reply).toMatchObject({ via: 'workers-ai-binding', samples: [{ text: INVALID }], usage: { requests: 1, attempts: 2 } })
    expect(waits).toHaveLength(1)
  })
})

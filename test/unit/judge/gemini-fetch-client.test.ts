/**
 * The plain-fetch Gemini client sends what the real @google/genai SDK sends: the same calls go
 * through both to the loopback stub, and the recorded requests (path, API key, body) must be equal.
 * Then what only it decides: Vertex refused with the reason, Vertex-only fields refused, and its
 * answers read as the SDK's are.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createGeminiClient } from '../../../src/judge/gemini-client.ts'
import type { GenerateCall } from '../../../src/judge/model-client.ts'
import { createGeminiFetchClient } from '../../../src/judge/gemini-fetch-client.ts'
import { toSdkConfig } from '../../../src/judge/model-config.ts'
import { apiError, type GeminiStub, type RecordedRequest, startGeminiStub } from '../../support/gemini-stub.ts'

let stub: GeminiStub
beforeAll(async () => void (stub = await startGeminiStub()))
beforeEach(() => {
  stub.requests.length = 0
  stub.handle(() => ({ candidates: ['a', 'b'], usage: { prompt: 7, output: 3 } }))
})
afterAll(() => stub.close())

const config = () => ({ gemini: { kind: 'gemini-api' as const, apiKey: 'test-key' }, baseUrl: stub.url })
const call = (over: Partial<GenerateCall> = {}): GenerateCall => ({
  model: 'gemini-2.5-flash',
  prompt: 'Is it valid?',
  config: {},
  signal: new AbortController().signal,
  ...over,
})
const sent = (r: RecordedRequest) => ({ method: r.method, path: r.path, key: r.headers['x-goog-api-key'], body: r.body })

/** Each config a judge call can carry: the judge's own fields and a user's judge_model_config. */
const CONFIGS: Array<[string, Record<string, unknown>, string?]> = [
  ['no config', {}],
  ['system instruction, JSON schema, candidates', {
    systemInstruction: 'You are a rater.',
    responseMimeType: 'application/json',
    responseJsonSchema: { type: 'object', properties: { label: { type: 'string' } } },
    candidateCount: 5,
  }],
  [
    "a user's judge_model_config in snake_case",
    toSdkConfig({
      temperature: 0.2,
      top_p: 0.9,
      top_k: 20,
      max_output_tokens: 256,
      stop_sequences: ['END'],
      seed: 7,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      thinking_config: { thinking_budget: 0 },
      safety_settings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      response_modalities: ['TEXT'],
    }),
  ],
  ['a system instruction as a Content', { systemInstruction: { role: 'system', parts: [{ text: 'Rate.' }] } }],
  ['a system instruction as a list of parts', { systemInstruction: ['Rate.', { text: 'Strictly.' }] }],
  ['a field neither knows', { notAField: 1, temperature: 0 }],
  ['a model already named models/...', {}, 'models/gemini-2.5-pro'],
]

describe('the fetch client sends what the SDK sends', () => {
  it.each(CONFIGS)('%s', async (_name, generateConfig, model) => {
    const sdk = createGeminiClient(config(), undefined)
    const plain = createGeminiFetchClient(config())
    const a = await sdk.generate(call({ config: generateConfig, ...(model ? { model } : {}) }))
    const b = await plain.generate(call({ config: generateConfig, ...(model ? { model } : {}) }))
    expect(stub.requests).toHaveLength(2)
    expect(sent(stub.requests[1]!)).toEqual(sent(stub.requests[0]!))
    expect(b).toEqual(a)
    expect(b).toEqual({ ok: true, samples: [{ text: 'a' }, { text: 'b' }], promptTokens: 7, outputTokens: 3 })
  })

  it('reads failures as the SDK client does: status, message, Retry-After', async () => {
    for (const reply of [apiError(429, 'slow down', { 'retry-after': '12' }), apiError(400, 'candidateCount must be 1')]) {
      const answers = []
      for (const client of [createGeminiClient(config(), undefined), createGeminiFetchClient(config())]) {
        stub.enqueue(reply)
        answers.push(await client.generate(call()))
      }
      expect(answers[1]).toEqual(answers[0])
      expect(answers[1]).toMatchObject({ ok: false, status: 'error' in reply ? reply.error.code : 0, malformed: false })
    }
  })

  it('an answer that is not JSON is malformed for both (not worth another attempt)', async () => {
    for (const client of [createGeminiClient(config(), undefined), createGeminiFetchClient(config())]) {
      stub.enqueue({ raw: 'not json', contentType: 'application/json' })
      expect(await client.generate(call())).toMatchObject({ ok: false, malformed: true })
    }
  })
})

describe('what only the fetch client decides', () => {
  it('refuses Vertex AI with the reason, sending nothing', async () => {
    const client = createGeminiFetchClient({ gemini: { kind: 'vertex', project: 'p', location: 'us-central1' }, baseUrl: stub.url })
    const result = await client.generate(call())
    expect(result).toMatchObject({ ok: false, malformed: true })
    expect(!result.ok && result.message).toMatch(/Vertex AI needs the @google\/genai client/)
    expect(stub.requests).toHaveLength(0)
  })

  it('refuses a field only Vertex AI takes, naming it, sending nothing', async () => {
    const result = await createGeminiFetchClient(config()).generate(call({ config: { routingConfig: { autoMode: {} } } }))
    expect(result).toEqual({ ok: false, message: 'routingConfig is only supported on Vertex AI, not on the Gemini API', malformed: true })
    expect(stub.requests).toHaveLength(0)
  })

  it('an abort rejects the call', async () => {
    stub.enqueue({ hang: true })
    const controller = new AbortController()
    const pending = createGeminiFetchClient(config()).generate(call({ signal: controller.signal }))
    await stub.waitForRequests(1)
    controller.abort(new Error('stop'))
    await expect(pending).rejects.toThrow('stop')
  })
})

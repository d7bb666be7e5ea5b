// The Gemini judge against the loopback stub, through each Gemini client: the real @google/genai
// SDK (Node, Deno, the CLI) and the plain-fetch client (a Worker); every case holds for both.
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import type { JudgeRequest } from '../../../src/core/criterion.ts'
import type { JudgeConfig } from '../../../src/judge/config.ts'
import { createGeminiJudge, type GeminiJudgeOptions } from '../../../src/judge/gemini.ts'
import { createGeminiClient, type GeminiClientFactory } from '../../../src/judge/gemini-client.ts'
import { createGeminiFetchClient } from '../../../src/judge/gemini-fetch-client.ts'
import { apiError, type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'

let stub: GeminiStub
const sleeps: number[] = []
beforeEach(async () => {
  await stub?.close()
  stub = await startGeminiStub()
  sleeps.length = 0
})
afterAll(() => stub?.close())

const CLIENTS: Array<[string, GeminiClientFactory]> = [['@google/genai', createGeminiClient], ['fetch', createGeminiFetchClient]]
let client: GeminiClientFactory

function judgeFor(options: GeminiJudgeOptions = {}, config: Partial<JudgeConfig> = {}) {
  return createGeminiJudge(
    { gemini: { kind: 'gemini-api', apiKey: 'test-key' }, baseUrl: stub.url, ...config },
    {
      client,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0.5,
      retry: { attempts: 3, initialDelayMs: 1000, maxDelayMs: 60_000 },
      ...options,
    },
  )
}

/** The label a final_response_match_v2 judge would answer with. */
const label = (l: string) => `{"reasoning": "r", "is_the_agent_response_valid": "${l}"}`
/** A vote that is decided once 3 samples agree (the majority of 5). */
const decidedAt3 = (texts: string[]) =>
  texts.filter((t) => t.includes('"valid"')).length >= 3 || texts.filter((t) => t.includes('"invalid"')).length >= 3

function request(over: Partial<JudgeRequest> = {}): JudgeRequest {
  return { id: 'req-1', model: 'gemini-2.5-flash', prompt: 'Is the response valid?', samples: 5, ...over }
}

describe.each(CLIENTS)('through the %s client', (_name, factory) => {
  beforeEach(() => void (client = factory))

  describe('createGeminiJudge: one request with candidateCount', () => {
    it('sends prompt, system instruction, schema and model config, and returns every candidate', async () => {
      stub.enqueue({
        candidates: [label('valid'), label('invalid'), label('valid'), label('valid'), label('valid')],
        usage: { prompt: 120, output: 50 },
      })
      const schema = { type: 'object', properties: { is_the_agent_response_valid: { type: 'string' } } }
      const answer = await judgeFor().answer(
        request({
          systemInstruction: 'You are a rater.',
          responseJsonSchema: schema,
          modelConfig: { temperature: 0.2, max_output_tokens: 256, candidate_count: 9 },
        }),
        {},
      )
      expect(answer.via).toBe('gemini')
      expect(answer.samples.map((s) => ('text' in s ? s.text : s))).toEqual([
        label('valid'),
        label('invalid'),
        label('valid'),
        label('valid'),
        label('valid'),
      ])
      expect(answer.usage).toEqual({ requests: 1, attempts: 1, promptTokens: 120, outputTokens: 50 })
      expect(stub.requests).toHaveLength(1)
      const [sent] = stub.requests
      expect(sent?.model).toBe('gemini-2.5-flash')
      expect(sent?.headers['x-goog-api-key']).toBe('test-key')
      expect(sent?.body.contents).toEqual([{ role: 'user', parts: [{ text: 'Is the response valid?' }] }])
      expect(sent?.body.systemInstruction.parts).toEqual([{ text: 'You are a rater.' }])
      // The judge owns candidateCount: the config's candidate_count does not override the sample count.
      expect(sent?.body.generationConfig).toEqual({
        temperature: 0.2,
        maxOutputTokens: 256,
        candidateCount: 5,
        responseMimeType: 'application/json',
        responseJsonSchema: schema,
      })
    })

    it('passes malformed JSON output through as text: parsing is the criterion’s job', async () => {
      stub.enqueue({ candidates: ['{"is_the_agent_response_valid": [valid', 'not json at all'] })
      const answer = await judgeFor().answer(request({ samples: 2 }), {})
      expect(answer.samples).toEqual([{ text: '{"is_the_agent_response_valid": [valid' }, { text: 'not json at all' }])
    })

    it('turns candidates without text into error samples', async () => {
      stub.enqueue({ candidates: [null, 'ok'], finishReason: 'SAFETY' })
      const answer = await judgeFor().answer(request({ samples: 2 }), {})
      expect(answer.samples[0]).toEqual({ error: 'judge returned no text (finishReason: SAFETY)' })
      expect(answer.samples[1]).toEqual({ text: 'ok' })
    })

    it('a response body that is not JSON fails every sample, without a retry or a throw', async () => {
      stub.enqueue({ raw: '{"candidates": [', status: 200 })
      const answer = await judgeFor().answer(request({ samples: 3 }), {})
      expect(answer.samples).toHaveLength(3)
      for (const s of answer.samples) expect(s).toMatchObject({ error: expect.stringContaining('judge call failed') })
      expect(stub.requests).toHaveLength(1)
    })
  })

  describe('createGeminiJudge: retries and timeouts', () => {
    it('retries a 429 with backoff and then succeeds', async () => {
      stub.enqueue(apiError(429, 'Resource has been exhausted'), { candidates: ['a', 'b'] })
      const answer = await judgeFor().answer(request({ samples: 2 }), {})
      expect(answer.samples).toEqual([{ text: 'a' }, { text: 'b' }])
      expect(stub.requests).toHaveLength(2)
      expect(answer.usage).toMatchObject({ requests: 1, attempts: 2 })
      expect(sleeps).toEqual([750]) // 1000 ms * (0.5 + 0.5 / 2)
    })

    it('gives up after the configured attempts on repeated 500s, with exponential delays', async () => {
      stub.handle(() => apiError(500, 'Internal error encountered.'))
      const answer = await judgeFor().answer(request({ samples: 2 }), {})
      expect(stub.requests).toHaveLength(3)
      expect(sleeps).toEqual([750, 1500])
      expect(answer.samples).toEqual([
        { error: expect.stringContaining('judge call failed (500)') },
        { error: expect.stringContaining('judge call failed (500)') },
      ])
    })

    it('does not retry a 400 that is not about candidateCount', async () => {
      stub.enqueue(apiError(400, 'Invalid JSON payload received.'))
      const answer = await judgeFor().answer(request({ samples: 1 }), {})
      expect(stub.requests).toHaveLength(1)
      expect(answer.samples).toEqual([{ error: expect.stringContaining('(400)') }])
    })

    it('retries network errors (connection refused)', async () => {
      const url = stub.url
      await stub.close()
      const judge = createGeminiJudge(
        { gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: url },
        { sleep: async (ms) => void sleeps.push(ms), random: () => 0, retry: { attempts: 2, initialDelayMs: 10, maxDelayMs: 10 } },
      )
      const answer = await judge.answer(request({ samples: 1 }), {})
      expect(answer.samples).toEqual([{ error: expect.stringContaining('judge call failed') }])
      expect(answer.usage?.attempts).toBe(2)
      expect(sleeps).toEqual([5])
    })

    it('times out a call that never answers, and does not retry it', async () => {
      stub.enqueue({ hang: true })
      const answer = await judgeFor({ timeoutMs: 150 }).answer(request({ samples: 1 }), {})
      expect(answer.samples).toEqual([{ error: 'judge call timed out after 150 ms' }])
      expect(stub.requests).toHaveLength(1)
    })

    it('rejects with the abort reason when aborted mid-call', async () => {
      stub.enqueue({ hang: true })
      const controller = new AbortController()
      // Aborted once the call is at the stub: mid-call, whatever the machine's speed.
      void stub.waitForRequests(stub.requests.length + 1).then(() => controller.abort(new DOMException('client gone', 'AbortError')))
      const pending = judgeFor({ timeoutMs: 10_000 }).answer(request({ samples: 1 }), { signal: controller.signal })
      await expect(pending).rejects.toThrow('client gone')
    })
  })

  describe('createGeminiJudge: separate calls when candidateCount is unavailable', () => {
    it('falls back on a 400 about candidateCount and stops once the vote is decided', async () => {
      stub.enqueue(apiError(400, 'Multiple candidates is not enabled for models/gemini-x. candidateCount must be 1'))
      stub.handle(() => ({ candidates: [label('valid')] }))
      const judge = judgeFor()
      const answer = await judge.answer(request({ model: 'gemini-x', decided: decidedAt3 }), {})
      expect(answer.samples).toEqual([{ text: label('valid') }, { text: label('valid') }, { text: label('valid') }])
      expect(stub.requests.map((r) => r.body.generationConfig?.candidateCount)).toEqual([5, undefined, undefined, undefined])
      expect(answer.usage?.requests).toBe(4)

      // The refusal is remembered: the next request for this model goes straight to single calls.
      stub.requests.length = 0
      const again = await judge.answer(request({ id: 'req-2', model: 'gemini-x', decided: decidedAt3 }), {})
      expect(again.samples).toHaveLength(3)
      expect(stub.requests.map((r) => r.body.generationConfig?.candidateCount)).toEqual([undefined, undefined, undefined])
    })

    it('draws all samples when the vote stays open (and when no decided() is given)', async () => {
      const labels = ['valid', 'invalid', 'valid', 'invalid', 'valid']
      stub.enqueue(apiError(400, 'candidate_count is not supported'))
      stub.handle(() => ({ candidates: [label(labels.shift() as string)] }))
      const answer = await judgeFor().answer(request({ model: 'gemini-y', decided: decidedAt3 }), {})
      expect(answer.samples.map((s) => ('text' in s ? s.text : ''))).toEqual(['valid', 'invalid', 'valid', 'invalid', 'valid'].map(label))
      expect(stub.requests).toHaveLength(6)
    })

    it('completes a short batch with single calls, consulting decided() between them', async () => {
      stub.enqueue({ candidates: [label('invalid'), label('invalid')] })
      stub.handle(() => ({ candidates: [label('invalid')] }))
      const answer = await judgeFor().answer(request({ decided: decidedAt3 }), {})
      expect(answer.samples).toHaveLength(3)
      expect(stub.requests).toHaveLength(2)
    })

    it('keeps every unparseable sample, since an unparseable vote is never decided', async () => {
      stub.enqueue(apiError(400, 'candidateCount must be 1'))
      stub.handle(() => ({ candidates: ['I think it is fine.'] }))
      const answer = await judgeFor().answer(request({ model: 'gemini-z', decided: decidedAt3 }), {})
      expect(answer.samples).toEqual(Array(5).fill({ text: 'I think it is fine.' }))
    })

    it('a failed single call becomes an error sample and the others still count', async () => {
      stub.enqueue(apiError(400, 'candidateCount must be 1'), { candidates: [label('valid')] }, apiError(403, 'denied'))
      stub.handle(() => ({ candidates: [label('valid')] }))
      const answer = await judgeFor().answer(request({ model: 'gemini-w', samples: 3 }), {})
      expect(answer.samples).toEqual([{ text: label('valid') }, { error: expect.stringContaining('(403)') }, { text: label('valid') }])
    })
  })
})

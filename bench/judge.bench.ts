/**
 * Judge cost and throughput, measured against the loopback Gemini stub through the real
 * @google/genai SDK. Run: npx node bench/judge.bench.ts
 *
 * 1. Requests and prompt tokens per (invocation, criterion) at num_samples 5:
 *    - ours, model accepts candidateCount: one request returns all 5 samples;
 *    - ours, model refuses candidateCount: one refused request, then single calls with early stop;
 *    - ADK v2.0's way: 5 sequential requests, each sending the whole prompt.
 * 2. The same through an OpenAI-compatible chat-completions server (the real client over loopback):
 *    `n` = 5 in one request, a server without `n` (one call per sample, early stop), ADK's 5 calls.
 * 3. Throughput of the executor under its concurrency limit, with a stub answering after a fixed delay.
 * Token counts are the stub's estimate (4 characters a token), identical for every strategy.
 */
import { createJudgeExecutor } from '../src/judge/executor.ts'
import { createGeminiJudge } from '../src/judge/gemini.ts'
import type { JudgeRequest } from '../src/core/criterion.ts'
import { apiError, startGeminiStub, type StubReply } from '../test/support/gemini-stub.ts'
import { createJudgeRouter } from '../src/judge/judge-router.ts'
import { chatProviderFromEnv } from '../src/config/judge-env.ts'
import type { ChatProvider } from '../src/judge/providers.ts'
import { startChatStub } from '../test/unit/judge/chat-stub.ts'

const INVOCATIONS = 200
const SAMPLES = 5
const P_VALID = 0.8 // chance that one judge sample says "valid"

// A prompt of the size of a reference-based judge prompt (rater rules + the three texts), ~2.6 KB.
const PROMPT = 'You are grading whether an agent response is valid against a reference.\n' +
  'Rules: ignore formatting differences; accept equivalent units; allow numeric rounding; ...\n'.repeat(20) +
  '{"User prompt": What is the weather in Paris?, "Agent response": It is 21 C and sunny., ' +
  '"Reference response": Sunny, 21 degrees Celsius.}\nAnswer as JSON with reasoning and is_the_agent_response_valid.'

/** Deterministic pseudo-random labels (bench only): a 32-bit LCG. */
function labels(seed: number): () => string {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32 < P_VALID ? 'valid' : 'invalid'
  }
}
const text = (l: string) => `{"reasoning": "compared", "is_the_agent_response_valid": "${l}"}`
const decided = (texts: string[]) => {
  const valid = texts.filter((t) => t.includes('"valid"')).length
  const invalid = texts.filter((t) => t.includes('"invalid"')).length
  return valid > SAMPLES / 2 || invalid >= SAMPLES / 2 // a tie goes to invalid in ADK
}

async function costRun(strategy: 'candidateCount' | 'fallback' | 'adk') {
  const stub = await startGeminiStub()
  const next = labels(42)
  stub.handle((req): StubReply => {
    const n = req.body?.generationConfig?.candidateCount ?? 1
    if (strategy !== 'candidateCount' && n > 1) return apiError(400, 'candidateCount must be 1 for this model')
    return { candidates: Array.from({ length: n }, () => text(next())) }
  })
  const judge = createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'bench' }, baseUrl: stub.url })
  const model = strategy === 'candidateCount' ? 'gemini-2.5-flash' : 'gemini-no-candidates'
  let samples = 0
  let promptTokens = 0
  for (let i = 0; i < INVOCATIONS; i++) {
    const request: JudgeRequest = { id: `inv-${i}`, model, prompt: PROMPT, samples: SAMPLES, decided }
    if (strategy === 'adk') {
      for (let k = 0; k < SAMPLES; k++) {
        const answer = await judge.answer({ ...request, samples: 1 }, {})
        samples += answer.samples.length
        promptTokens += answer.usage?.promptTokens ?? 0
      }
    } else {
      const answer = await judge.answer(request, {})
      samples += answer.samples.length
      promptTokens += answer.usage?.promptTokens ?? 0
    }
  }
  // Every HTTP request the stub saw, refused ones included; tokens are usageMetadata.promptTokenCount
  // of the answered ones (a refused 400 reports none and is not billed).
  const requests = stub.requests.length
  const batched = stub.requests.filter((r) => (r.body.generationConfig?.candidateCount ?? 1) > 1).length
  await stub.close()
  return { strategy, requests, batched, samples, promptTokens }
}

async function chatCostRun(strategy: 'n' | 'no-n' | 'adk') {
  const stub = await startChatStub()
  const next = labels(42)
  stub.handle((req) => {
    const n = req.body?.n ?? 1
    const chars = (req.body?.messages ?? []).map((m: { content: string }) => m.content).join('').length
    return {
      choices: Array.from({ length: n }, () => text(next())),
      usage: { prompt_tokens: Math.ceil(chars / 4), completion_tokens: 20 * n },
    }
  })
  const env = { EVALSTREAM_JUDGE_VLLM_BASE_URL: stub.url, EVALSTREAM_JUDGE_VLLM_N: strategy === 'n' ? 'true' : 'false' }
  const provider = chatProviderFromEnv('vllm', env) as ChatProvider
  const judge = createJudgeRouter({ providers: new Map([['vllm', provider]]) })
  let samples = 0
  let promptTokens = 0
  for (let i = 0; i < INVOCATIONS; i++) {
    const request: JudgeRequest = { id: `inv-${i}`, model: 'vllm/qwen', prompt: PROMPT, samples: SAMPLES, decided }
    for (const r of strategy === 'adk' ? Array.from({ length: SAMPLES }, () => ({ ...request, samples: 1 })) : [request]) {
      const answer = await judge.answer(r, {})
      samples += answer.samples.length
      promptTokens += answer.usage?.promptTokens ?? 0
    }
  }
  const requests = stub.requests.length
  const batched = stub.requests.filter((r) => (r.body?.n ?? 1) > 1).length
  await stub.close()
  return { strategy, requests, batched, samples, promptTokens }
}

async function throughputRun(concurrency: number, delayMs: number, total: number) {
  const stub = await startGeminiStub()
  stub.handle(() => ({ candidates: [text('valid')], delayMs }))
  const judge = createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'bench' }, baseUrl: stub.url })
  const executor = createJudgeExecutor({ judge, concurrency })
  const requests = Array.from(
    { length: total },
    (_, i): JudgeRequest => ({ id: `t-${concurrency}-${i}`, model: 'm', prompt: PROMPT, samples: 1 }),
  )
  const t0 = performance.now()
  await executor.answerAll(requests)
  const seconds = (performance.now() - t0) / 1000
  await stub.close()
  return { concurrency, delayMs, total, seconds, perSecond: total / seconds, ideal: (concurrency * 1000) / delayMs }
}

async function latencyRun(strategy: 'candidateCount' | 'adk', delayMs: number) {
  const stub = await startGeminiStub()
  stub.handle((req) => ({
    candidates: Array.from({ length: req.body?.generationConfig?.candidateCount ?? 1 }, () => text('valid')),
    delayMs,
  }))
  const judge = createGeminiJudge({ gemini: { kind: 'gemini-api', apiKey: 'bench' }, baseUrl: stub.url })
  const runs = 20
  const t0 = performance.now()
  for (let i = 0; i < runs; i++) {
    const request: JudgeRequest = { id: `l-${i}`, model: 'm', prompt: PROMPT, samples: SAMPLES }
    if (strategy === 'adk') { for (let k = 0; k < SAMPLES; k++) await judge.answer({ ...request, samples: 1 }, {}) }
    else await judge.answer(request, {})
  }
  const ms = (performance.now() - t0) / runs
  await stub.close()
  return { strategy, delayMs, msPerInvocation: ms }
}

const cost = [await costRun('candidateCount'), await costRun('fallback'), await costRun('adk')]
console.log(`## Cost per (invocation, criterion), num_samples ${SAMPLES}, ${INVOCATIONS} invocations, P(valid sample) = ${P_VALID}`)
console.log(
  '| strategy | HTTP requests / invocation | requests with candidateCount > 1 (total) | samples drawn / invocation | prompt tokens / invocation |',
)
console.log('|---|---|---|---|---|')
for (const c of cost) {
  console.log(
    `| ${c.strategy} | ${(c.requests / INVOCATIONS).toFixed(2)} | ${c.batched} | ${(c.samples / INVOCATIONS).toFixed(2)} | ${
      Math.round(c.promptTokens / INVOCATIONS)
    } |`,
  )
}
const chatCost = [await chatCostRun('n'), await chatCostRun('no-n'), await chatCostRun('adk')]
console.log(`\n## OpenAI-compatible judge (judge_model vllm/<model>), num_samples ${SAMPLES}, ${INVOCATIONS} invocations`)
console.log(
  '| strategy | HTTP requests / invocation | requests with n > 1 (total) | samples drawn / invocation | prompt tokens / invocation |',
)
console.log('|---|---|---|---|---|')
for (const c of chatCost) {
  console.log(
    `| ${c.strategy} | ${(c.requests / INVOCATIONS).toFixed(2)} | ${c.batched} | ${(c.samples / INVOCATIONS).toFixed(2)} | ${
      Math.round(c.promptTokens / INVOCATIONS)
    } |`,
  )
}
console.log('\n## Latency per invocation (sequential, stub delay per call)')
console.log('| strategy | stub delay ms | ms / invocation |')
console.log('|---|---|---|')
for (const l of [await latencyRun('candidateCount', 50), await latencyRun('adk', 50)]) {
  console.log(`| ${l.strategy} | ${l.delayMs} | ${l.msPerInvocation.toFixed(1)} |`)
}
console.log('\n## Executor throughput (stub answers after a fixed delay)')
console.log('| concurrency | delay ms | requests | seconds | requests/s | ideal requests/s |')
console.log('|---|---|---|---|---|---|')
for (const c of [1, 4, 16, 64]) {
  const t = await throughputRun(c, 50, c === 1 ? 100 : 400)
  console.log(
    `| ${t.concurrency} | ${t.delayMs} | ${t.total} | ${t.seconds.toFixed(2)} | ${t.perSecond.toFixed(1)} | ${t.ideal.toFixed(0)} |`,
  )
}

/**
 * A judge client over a Worker's Workers AI binding (`env.AI.run(model, inputs)`): an edge judge
 * with no key and no HTTP hop. It answers the judge model client's one-call contract
 * (./model-client.ts) with exactly one candidate per call, since the binding has no `n`; the
 * sampler then draws the samples one call at a time and stops as soon as the vote is decided.
 */
import type { JudgeSample } from '../core/criterion.ts'
import type { GenerateResult, ModelClient } from './model-client.ts'
import { systemText } from './openai-client.ts'
import { DEFAULT_JUDGE_MAX_RESPONSE_BYTES, overCapMessage } from './capped-body.ts'

/** The part of the Workers AI binding a judge uses (the `Ai` type of @cloudflare/workers-types). */
export type WorkersAiBinding = {
  run(model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>
}

/** Sampling parameters the binding's text-generation models accept, from the SDK config (camelCase). */
const PARAMS: Record<string, string> = {
  temperature: 'temperature',
  topP: 'top_p',
  topK: 'top_k',
  maxOutputTokens: 'max_tokens',
  seed: 'seed',
  presencePenalty: 'presence_penalty',
  frequencyPenalty: 'frequency_penalty',
}

/** The binding's inputs for one call: chat messages, sampling parameters, and JSON mode with the schema. */
function bindingInputs(prompt: string, config: Record<string, unknown>): Record<string, unknown> {
  const messages: { role: string; content: string }[] = []
  const system = systemText(config.systemInstruction)
  if (system) messages.push({ role: 'system', content: system })
  messages.push({ role: 'user', content: prompt })
  const inputs: Record<string, unknown> = { messages }
  for (const [from, to] of Object.entries(PARAMS)) if (config[from] !== undefined) inputs[to] = config[from]
  // Workers AI's JSON mode takes the schema itself under json_schema.
  if (config.responseJsonSchema) inputs.response_format = { type: 'json_schema', json_schema: config.responseJsonSchema }
  return inputs
}

/** The answer's text: `response` (a string, or an object in JSON mode) or an OpenAI-style choice. */
function sampleOf(output: unknown): JudgeSample {
  const o = output as { response?: unknown; choices?: { message?: { content?: unknown } }[] } | null
  if (typeof o?.response === 'string' && o.response !== '') return { text: o.response }
  if (o?.response !== undefined && o.response !== null && typeof o.response === 'object') return { text: JSON.stringify(o.response) }
  const content = o?.choices?.[0]?.message?.content
  if (typeof content === 'string' && content !== '') return { text: content }
  return { error: 'Workers AI returned no text' }
}

function tokens(output: unknown, field: 'prompt_tokens' | 'completion_tokens'): number {
  const v = (output as { usage?: Record<string, unknown> } | null)?.usage?.[field]
  return typeof v === 'number' && Number.isFinite(v) ? v : 0
}

/**
 * @example
 * const client = createWorkersAiClient(env.AI)
 * await client.generate({ model: '@cf/meta/llama-3.1-8b-instruct', prompt: 'Hi', config: {}, signal })
 */
export function createWorkersAiClient(binding: WorkersAiBinding, maxResponseBytes = DEFAULT_JUDGE_MAX_RESPONSE_BYTES): ModelClient {
  return {
    async generate(call): Promise<GenerateResult> {
      call.signal.throwIfAborted()
      const inputs = bindingInputs(call.prompt, call.config)
      // The binding takes no AbortSignal: the race lets a timed-out or aborted call return at once.
      let onAbort = () => {}
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(call.signal.reason)
        call.signal.addEventListener('abort', onAbort, { once: true })
      })
      try {
        const output = await Promise.race([binding.run(call.model, inputs), aborted])
        // The binding hands over the answer already read; what is kept of it is still held to the cap.
        const sample = sampleOf(output)
        if ('text' in sample && sample.text.length > maxResponseBytes) {
          return { ok: false, message: overCapMessage('Workers AI', maxResponseBytes), malformed: true }
        }
        return {
          ok: true,
          samples: [sample],
          promptTokens: tokens(output, 'prompt_tokens'),
          outputTokens: tokens(output, 'completion_tokens'),
        }
      } catch (e) {
        if (call.signal.aborted) throw e
        return { ok: false, message: `Workers AI: ${(e as Error)?.message ?? String(e)}`, malformed: false }
      } finally {
        call.signal.removeEventListener('abort', onAbort)
      }
    },
  }
}

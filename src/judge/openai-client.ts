/**
 * A judge client speaking OpenAI's chat-completions protocol over plain fetch (OpenAI, Azure
 * OpenAI's v1 API, vLLM, Ollama, LiteLLM, Cloudflare's OpenAI-compatible Workers AI endpoint). It
 * answers the same one-call contract as the Gemini clients (./model-client.ts), so the same retry,
 * timeout and sampling code (./judge-call.ts, ./judge-samples.ts) drives it: `candidateCount`
 * becomes `n`, the system instruction a system message, the JSON schema `response_format`.
 */
import type { JudgeSample } from '../core/criterion.ts'
import type { GenerateResult, ModelClient } from './model-client.ts'
import type { ChatProvider } from './providers.ts'
import { DEFAULT_JUDGE_MAX_RESPONSE_BYTES, overCapMessage, readCappedText } from './capped-body.ts'

/** SDK config fields (camelCase, as ./model-config.ts produces them) and their chat-completions names. */
const PARAMS: Record<string, string> = {
  temperature: 'temperature',
  topP: 'top_p',
  maxOutputTokens: 'max_tokens',
  seed: 'seed',
  stopSequences: 'stop',
  presencePenalty: 'presence_penalty',
  frequencyPenalty: 'frequency_penalty',
}

/** The chat-completions body for one call: messages, `n`, sampling parameters and the answer schema. */
function chatBody(
  model: string,
  prompt: string,
  config: Record<string, unknown>,
  structuredOutput: boolean,
): Record<string, unknown> {
  const messages: { role: string; content: string }[] = []
  const system = systemText(config.systemInstruction)
  if (system) messages.push({ role: 'system', content: system })
  messages.push({ role: 'user', content: prompt })
  const body: Record<string, unknown> = { model, messages }
  const n = config.candidateCount
  if (typeof n === 'number' && n > 1) body.n = n
  for (const [from, to] of Object.entries(PARAMS)) if (config[from] !== undefined) body[to] = config[from]
  if (structuredOutput && config.responseJsonSchema) {
    body.response_format = { type: 'json_schema', json_schema: { name: 'judge_answer', schema: config.responseJsonSchema } }
  }
  return body
}

/** A system instruction as the SDK accepts it (a string, or a Content with text parts) as plain text. */
export function systemText(instruction: unknown): string | undefined {
  if (typeof instruction === 'string') return instruction
  const parts = (instruction as { parts?: { text?: unknown }[] } | undefined)?.parts
  if (!Array.isArray(parts)) return undefined
  return parts.flatMap((p) => (typeof p?.text === 'string' ? [p.text] : [])).join('')
}

type ChatChoice = { index?: number; message?: { content?: unknown }; finish_reason?: string }

/** Each choice's text, in index order; a choice without text says its finish reason. */
function choiceSamples(body: { choices?: unknown }): JudgeSample[] {
  const choices = Array.isArray(body.choices) ? ([...body.choices] as ChatChoice[]) : []
  choices.sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
  return choices.map((c) => {
    const content = c?.message?.content
    if (typeof content === 'string' && content !== '') return { text: content }
    return { error: `judge returned no text (finish_reason: ${c?.finish_reason ?? 'none'})` }
  })
}

function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown }
    if (typeof body.error === 'string') return body.error
    if (typeof body.error?.message === 'string') return body.error.message
    if (typeof body.message === 'string') return body.message
  } catch {
    // Not JSON: the raw text says what went wrong.
  }
  return text
}

/** A server that refuses `n` (or n > 1) says so in a 400 naming the parameter. */
function refusesN(message: string): boolean {
  return /(^|[^a-z_])n([^a-z_]|$)|candidate.?count|number of (choices|completions)/i.test(message)
}

/**
 * @example
 * const client = createChatClient(provider)
 * const result = await client.generate({ model: 'gpt-4.1-mini', prompt: 'Hi', config: { candidateCount: 5 }, signal })
 */
export function createChatClient(
  provider: ChatProvider,
  doFetch: typeof fetch = fetch,
  maxResponseBytes = DEFAULT_JUDGE_MAX_RESPONSE_BYTES,
): ModelClient {
  const url = `${provider.baseUrl}/chat/completions`
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (provider.apiKey) {
    if (provider.keyHeader === 'api-key') headers['api-key'] = provider.apiKey
    else headers.authorization = `Bearer ${provider.apiKey}`
  }
  return {
    async generate(call): Promise<GenerateResult> {
      const config = provider.supportsN ? call.config : { ...call.config, candidateCount: undefined }
      const body = JSON.stringify(chatBody(call.model, call.prompt, config, provider.structuredOutput))
      let response: Response
      let text: string
      try {
        response = await doFetch(url, { method: 'POST', headers, body, signal: call.signal })
        const read = await readCappedText(response, maxResponseBytes)
        // Cut: another attempt would be answered the same way.
        if (!read.ok) return { ok: false, message: overCapMessage(`${provider.name} (${url})`, maxResponseBytes), malformed: true }
        text = read.text
      } catch (e) {
        if (call.signal.aborted) throw e
        return { ok: false, message: (e as Error).message, malformed: false }
      }
      if (!response.ok) {
        const message = errorMessage(text)
        const retryAfter = response.headers.get('retry-after') ?? undefined
        const nRejected = response.status === 400 && typeof call.config.candidateCount === 'number' && refusesN(message)
        return { ok: false, status: response.status, message, ...(retryAfter ? { retryAfter } : {}), malformed: false, nRejected }
      }
      let parsed: { choices?: unknown; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }
      try {
        parsed = JSON.parse(text)
      } catch {
        return { ok: false, message: `${provider.name} returned a body that is not JSON: ${text.slice(0, 200)}`, malformed: true }
      }
      const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
      return {
        ok: true,
        samples: choiceSamples(parsed ?? {}),
        promptTokens: count(parsed?.usage?.prompt_tokens),
        outputTokens: count(parsed?.usage?.completion_tokens),
      }
    },
  }
}

/**
 * The Gemini API's generateContent over plain `fetch`, with the judge model client's contract
 * (./model-client.ts): what a Worker uses, since the @google/genai SDK is the largest part of its
 * bundle and a third of its cold start, and on Workers the SDK serves this one call with an API key
 * anyway (its browser build refuses Vertex). The request is the one the SDK sends for the Gemini API
 * (`POST {base}/v1/models/{model}:generateContent`, the key in `x-goog-api-key`, the
 * config's generation fields under `generationConfig`, the rest beside `contents`); a test sends
 * the same calls through both clients to the loopback stub and compares the requests.
 */
import { type CappedText, DEFAULT_JUDGE_MAX_RESPONSE_BYTES, overCapMessage, readCappedText } from './capped-body.ts'
import type { JudgeConfig } from './config.ts'
import { samplesOf, tokenCount, unreachableMessage } from './gemini-answer.ts'
import type { GenerateResult, ModelClient } from './model-client.ts'

/** Where the Gemini API answers when GEMINI_BASE_URL does not say otherwise (the SDK's default). */
export const GEMINI_API_BASE_URL = 'https://generativelanguage.googleapis.com'
/** The SDK's API version for the Gemini API (GOOGLE_AI_API_DEFAULT_VERSION in @google/genai 3.x). */
const API_VERSION = 'v1'

/** Config fields the SDK moves out of `generationConfig`, beside `contents`. */
const REQUEST_FIELDS = new Set([
  'serviceTier',
  'systemInstruction',
  'safetySettings',
  'tools',
  'toolConfig',
  'labels',
  'cachedContent',
  'continuationToken',
  'store',
])
/** Config fields the SDK puts in `generationConfig` for the Gemini API; any other field it leaves out, and so does this client. */
const GENERATION_FIELDS = new Set([
  'temperature',
  'topP',
  'topK',
  'candidateCount',
  'maxOutputTokens',
  'stopSequences',
  'responseLogprobs',
  'logprobs',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'mediaResolution',
  'speechConfig',
  'thinkingConfig',
  'audioTranscriptionConfig',
  'imageConfig',
  'enableEnhancedCivicAnswers',
])
/** Fields only Vertex AI takes: the SDK refuses them for the Gemini API, and so does this client. */
const VERTEX_ONLY = ['routingConfig', 'modelSelectionConfig', 'audioTimestamp', 'modelArmorConfig', 'generationOutputConfig']

/** A Content from a string, a part, a list of either, or a Content (as the SDK's tContent). */
function content(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'parts' in value) return value
  const list = Array.isArray(value) ? value : [value]
  return { role: 'user', parts: list.map((p) => (typeof p === 'string' ? { text: p } : p)) }
}

/** `models/<name>` unless the name already says where it lives (as the SDK's tModel for the Gemini API). */
function modelPath(model: string): string {
  return model.startsWith('models/') || model.startsWith('tunedModels/') ? model : `models/${model}`
}

/**
 * The request body for one call, or the problem with its config.
 * @example
 * generateContentBody('Hi', { systemInstruction: 'Rate.', temperature: 0 })
 * // { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], systemInstruction: { role: 'user', parts: [{ text: 'Rate.' }] }, generationConfig: { temperature: 0 } }
 */
function generateContentBody(prompt: string, config: Record<string, unknown>): Record<string, unknown> | string {
  const refused = VERTEX_ONLY.find((name) => config[name] !== undefined)
  if (refused) return `${refused} is only supported on Vertex AI, not on the Gemini API`
  const body: Record<string, unknown> = { contents: [{ role: 'user', parts: [{ text: prompt }] }] }
  const generationConfig: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(config)) {
    if (value === undefined || value === null) continue
    if (name === 'systemInstruction') body.systemInstruction = content(value)
    else if (REQUEST_FIELDS.has(name)) body[name] = value
    else if (GENERATION_FIELDS.has(name)) generationConfig[name] = value
  }
  body.generationConfig = generationConfig
  return body
}

/** The failure a non-2xx answer means, its message the body as the SDK's ApiError puts it. */
function failure(response: Response, text: string): GenerateResult {
  const retryAfter = response.headers.get('retry-after') ?? undefined
  const isJson = response.headers.get('content-type')?.includes('application/json')
  let message: string
  try {
    message = isJson
      ? JSON.stringify(JSON.parse(text))
      : JSON.stringify({ error: { message: text, code: response.status, status: response.statusText } })
  } catch (e) {
    return { ok: false, status: response.status, message: (e as Error).message, retryAfter, malformed: e instanceof SyntaxError }
  }
  return { ok: false, status: response.status, message, retryAfter, malformed: false }
}

/**
 * @example
 * const client = createGeminiFetchClient({ gemini: { kind: 'gemini-api', apiKey: 'k' } })
 * const result = await client.generate({ model: 'gemini-2.5-flash', prompt: 'Hi', config: {}, signal })
 */
export function createGeminiFetchClient(
  config: JudgeConfig,
  _token?: (() => Promise<string>) | undefined,
  maxResponseBytes = DEFAULT_JUDGE_MAX_RESPONSE_BYTES,
): ModelClient {
  const g = config.gemini
  if (g.kind !== 'gemini-api') {
    // Vertex AI takes Google credentials the SDK finds and refreshes (application default
    // credentials); this client has none of that: every Gemini call fails with the reason, and
    // other judge providers keep working.
    const message = 'the Gemini client could not be created: Vertex AI needs the @google/genai client (Node or Deno); ' +
      'here only the Gemini API (GEMINI_API_KEY) can be used'
    return { generate: () => Promise.resolve({ ok: false, message, malformed: true }) }
  }
  const base = (config.baseUrl ?? GEMINI_API_BASE_URL).replace(/\/+$/, '')
  const origin = new URL(base).origin
  return {
    async generate(call) {
      const body = generateContentBody(call.prompt, call.config)
      if (typeof body === 'string') return { ok: false, message: body, malformed: true }
      let response: Response
      try {
        response = await fetch(`${base}/${API_VERSION}/${modelPath(call.model)}:generateContent`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-goog-api-key': g.apiKey },
          body: JSON.stringify(body),
          signal: call.signal,
        })
      } catch (e) {
        if (call.signal.aborted) throw e
        return { ok: false, message: unreachableMessage(e, origin), malformed: false }
      }
      // Read under the cap: a gateway streaming without end is cut, not buffered.
      let read: CappedText
      try {
        read = await readCappedText(response, maxResponseBytes)
      } catch (e) {
        if (call.signal.aborted) throw e
        return { ok: false, message: unreachableMessage(e, origin), malformed: false }
      }
      if (!read.ok) return { ok: false, message: overCapMessage(`the Gemini judge (${origin})`, maxResponseBytes), malformed: true }
      if (!response.ok) return failure(response, read.text)
      let answer: Parameters<typeof samplesOf>[0]
      try {
        answer = JSON.parse(read.text)
      } catch (e) {
        if (call.signal.aborted) throw e
        return { ok: false, message: (e as Error).message, malformed: e instanceof SyntaxError }
      }
      if (typeof answer !== 'object' || answer === null) return { ok: false, message: 'the answer is not a JSON object', malformed: true }
      return {
        ok: true,
        samples: samplesOf(answer),
        promptTokens: tokenCount(answer.usageMetadata?.promptTokenCount),
        outputTokens: tokenCount(answer.usageMetadata?.candidatesTokenCount),
      }
    },
  }
}

/**
 * The Gemini client through @google/genai (the only file that imports its code; the Node and Deno
 * servers and the CLI use it, a Worker uses ./gemini-fetch-client.ts). It builds the SDK client for the
 * configured backend (Gemini API or Vertex AI, with application default credentials) and turns one generateContent call into a plain
 * value: the candidates' texts and token counts, or the failure with its HTTP status and the
 * Retry-After the server sent (the SDK's ApiError drops headers, so a per-call fetch keeps it).
 */
import { ApiError, GoogleGenAI, type GoogleGenAIOptions } from '@google/genai'
import type { JudgeConfig } from './config.ts'
import { samplesOf, tokenCount, unreachableMessage } from './gemini-answer.ts'
import type { ModelClient } from './model-client.ts'

export { tokenCount }
import { cappedResponse, DEFAULT_JUDGE_MAX_RESPONSE_BYTES, overCapMessage } from './capped-body.ts'

/** Builds the client for a judge configuration (and a Vertex token, when one is given). */
export type GeminiClientFactory = (
  config: JudgeConfig,
  token: (() => Promise<string>) | undefined,
  /** Bytes of one answer read at most (default DEFAULT_JUDGE_MAX_RESPONSE_BYTES); past it the call fails. */
  maxResponseBytes?: number,
) => ModelClient

function sdkClient(config: JudgeConfig, token: (() => Promise<string>) | undefined): GoogleGenAI {
  const httpOptions = config.baseUrl ? { baseUrl: config.baseUrl } : undefined
  const g = config.gemini
  if (g.kind === 'gemini-api') return new GoogleGenAI({ apiKey: g.apiKey, httpOptions })
  const options: GoogleGenAIOptions = { vertexai: true, project: g.project, location: g.location, httpOptions }
  if (token) {
    // google-auth-library accepts any client with getRequestHeaders; this one serves a given token.
    const authClient = { getRequestHeaders: async () => new Headers({ authorization: `Bearer ${await token()}` }) }
    options.googleAuthOptions = { authClient } as unknown as GoogleGenAIOptions['googleAuthOptions']
  }
  return new GoogleGenAI(options)
}

/**
 * @example
 * const client = createGeminiClient(judgeConfigFromEnv(process.env)!, undefined)
 * const result = await client.generate({ model: 'gemini-2.5-flash', prompt: 'Hi', config: {}, signal })
 */
export function createGeminiClient(
  config: JudgeConfig,
  token: (() => Promise<string>) | undefined,
  maxResponseBytes = DEFAULT_JUDGE_MAX_RESPONSE_BYTES,
): ModelClient {
  let ai: GoogleGenAI
  try {
    ai = sdkClient(config, token)
  } catch (e) {
    // The SDK refuses some setups at construction (its browser build, used on Workers, requires an
    // API key, so Vertex mode cannot be built there): every Gemini call then fails with the reason
    // instead of the deployment failing to start; other judge providers keep working.
    const message = `the Gemini client could not be created: ${(e as Error).message}`
    return { generate: () => Promise.resolve({ ok: false, message, malformed: true }) }
  }
  return {
    async generate(call) {
      let retryAfter: string | undefined
      let target = ''
      let cut = false
      // Per call, so concurrent calls never see each other's headers. The SDK reads the body it is
      // given, so the body it gets is cut at the cap.
      const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
        target = new URL(input instanceof Request ? input.url : String(input)).origin
        const response = await fetch(input, init)
        if (!response.ok) retryAfter = response.headers.get('retry-after') ?? undefined
        return cappedResponse(response, maxResponseBytes, () => (cut = true))
      }
      try {
        const response = await ai.models.generateContent({
          model: call.model,
          contents: [{ role: 'user', parts: [{ text: call.prompt }] }],
          config: { ...call.config, abortSignal: call.signal, httpOptions: { fetch: recordingFetch } },
        })
        return {
          ok: true,
          samples: samplesOf(response),
          promptTokens: tokenCount(response.usageMetadata?.promptTokenCount),
          outputTokens: tokenCount(response.usageMetadata?.candidatesTokenCount),
        }
      } catch (e) {
        if (call.signal.aborted) throw e
        if (cut) return { ok: false, message: overCapMessage(`the Gemini judge (${target})`, maxResponseBytes), malformed: true }
        if (e instanceof ApiError) return { ok: false, status: e.status, message: e.message, retryAfter, malformed: false }
        return { ok: false, message: unreachableMessage(e, target), malformed: e instanceof SyntaxError }
      }
    },
  }
}

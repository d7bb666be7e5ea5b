/**
 * The Gemini client: the only file that imports @google/genai. It builds the SDK client for the
 * configured backend (Gemini API or Vertex AI) and turns one generateContent call into a plain
 * value: the candidates' texts and token counts, or the failure with its HTTP status and the
 * Retry-After the server sent (the SDK's ApiError drops headers, so a per-call fetch keeps it).
 */
import { ApiError, GoogleGenAI, type GenerateContentResponse, type GoogleGenAIOptions } from '@google/genai'
import type { JudgeSample } from '../core/criterion.ts'
import type { JudgeConfig } from './config.ts'

export type GenerateCall = {
  model: string
  prompt: string
  /** SDK config (camelCase), systemInstruction and candidateCount included. */
  config: Record<string, unknown>
  signal: AbortSignal
}

export type GenerateResult =
  | { ok: true; samples: JudgeSample[]; promptTokens: number; outputTokens: number }
  | {
      ok: false
      /** HTTP status of an API error; absent for network failures and unreadable bodies. */
      status?: number
      message: string
      /** The Retry-After header of the failed response, raw. */
      retryAfter?: string
      /** The response came but could not be read (not JSON): another attempt will not help. */
      malformed: boolean
    }

/** One generateContent call; rejects only when `call.signal` aborts. */
export type GeminiClient = { generate(call: GenerateCall): Promise<GenerateResult> }

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

/** The text of each candidate (thought parts excluded), or why it has none. */
function samplesOf(response: GenerateContentResponse): JudgeSample[] {
  const candidates = [...(response.candidates ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
  return candidates.map((c) => {
    const parts = (c.content?.parts ?? []).filter((p) => typeof p.text === 'string' && !p.thought)
    if (parts.length === 0) return { error: `judge returned no text (finishReason: ${c.finishReason ?? 'none'})` }
    return { text: parts.map((p) => p.text).join('') }
  })
}

/**
 * @example
 * const client = createGeminiClient(judgeConfigFromEnv(process.env)!, undefined)
 * const result = await client.generate({ model: 'gemini-2.5-flash', prompt: 'Hi', config: {}, signal })
 */
export function createGeminiClient(config: JudgeConfig, token: (() => Promise<string>) | undefined): GeminiClient {
  const ai = sdkClient(config, token)
  return {
    async generate(call) {
      let retryAfter: string | undefined
      let target = ''
      // Per call, so concurrent calls never see each other's headers.
      const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
        target = new URL(input instanceof Request ? input.url : String(input)).origin
        const response = await fetch(input, init)
        if (!response.ok) retryAfter = response.headers.get('retry-after') ?? undefined
        return response
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
          promptTokens: response.usageMetadata?.promptTokenCount ?? 0,
          outputTokens: response.usageMetadata?.candidatesTokenCount ?? 0,
        }
      } catch (e) {
        if (call.signal.aborted) throw e
        if (e instanceof ApiError) return { ok: false, status: e.status, message: e.message, retryAfter, malformed: false }
        // Node's fetch says only "fetch failed"; the cause (ECONNREFUSED, ENOTFOUND...) and the
        // judge's address are what a person needs to fix it.
        const cause = (e as { cause?: { code?: string; message?: string } }).cause
        const why = cause?.code ?? cause?.message
        const message = why && target ? `cannot reach the judge at ${target} (${why})` : (e as Error).message
        return { ok: false, message, malformed: e instanceof SyntaxError }
      }
    },
  }
}

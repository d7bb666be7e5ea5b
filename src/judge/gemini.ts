/**
 * The Gemini judge: the only file that imports @google/genai. One JudgeRequest becomes, where the
 * model allows it, ONE generateContent call with candidateCount = samples; otherwise (or for the
 * samples a short reply left missing) one call per sample, stopping as soon as `request.decided`
 * says the vote can no longer change. safety_v1 requests go to Vertex's evaluation service when
 * Vertex is configured (./vertex-safety.ts).
 */
import { ApiError, GoogleGenAI, type GenerateContentResponse, type GoogleGenAIOptions } from '@google/genai'
import type { JudgeRequest, JudgeSample } from '../core/criterion.ts'
import type { JudgeConfig } from './config.ts'
import { deadline } from './deadline.ts'
import { toSdkConfig } from './model-config.ts'
import type { Judge, JudgeCallOptions, JudgeReply, JudgeUsage } from './port.ts'
import { emptyUsage } from './port.ts'
import { type Attempt, DEFAULT_RETRY, isRetryableStatus, type RetryDeps, type RetryPolicy, withRetry } from './retry.ts'
import { askVertexSafety } from './vertex-safety.ts'

export type GeminiJudgeOptions = RetryDeps & {
  /** Per HTTP attempt; a timed-out attempt is not retried (the model is slow, not unavailable). */
  timeoutMs?: number
  retry?: RetryPolicy
  /** OAuth token for Vertex; defaults to config.accessToken. Without one, Node's SDK uses ADC. */
  token?: () => Promise<string>
  /** fetch for the Vertex evaluation service (tests, proxies). */
  fetch?: typeof fetch
}

type Batch = { kind: 'ok'; samples: JudgeSample[] } | { kind: 'error'; error: string; candidateCountRejected: boolean }

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

function texts(samples: JudgeSample[]): string[] {
  return samples.flatMap((s) => ('text' in s ? [s.text] : []))
}

/**
 * @example
 * const judge = createGeminiJudge(judgeConfigFromEnv(process.env)!, { timeoutMs: 30_000 })
 * const answer = await judge.answer(request, { signal })
 */
export function createGeminiJudge(config: JudgeConfig, options: GeminiJudgeOptions = {}): Judge {
  const token = options.token ?? (config.accessToken ? () => Promise.resolve(config.accessToken as string) : undefined)
  const ai = sdkClient(config, token)
  const timeoutMs = options.timeoutMs ?? 60_000
  const policy = options.retry ?? DEFAULT_RETRY
  // Models that refused candidateCount once are asked one sample at a time from then on.
  const noCandidateCount = new Set<string>()

  async function call(request: JudgeRequest, n: number, opts: JudgeCallOptions, usage: JudgeUsage): Promise<Batch> {
    usage.requests++
    const base = toSdkConfig(request.modelConfig)
    const config = {
      ...base,
      ...(request.systemInstruction !== undefined ? { systemInstruction: request.systemInstruction } : {}),
      ...(request.responseJsonSchema ? { responseMimeType: 'application/json', responseJsonSchema: request.responseJsonSchema } : {}),
      ...(n > 1 ? { candidateCount: n } : {}),
    }
    let rejected = false
    const { result, attempts } = await withRetry<JudgeSample[]>(
      async (): Promise<Attempt<JudgeSample[]>> => {
        const d = deadline(timeoutMs, opts.signal)
        try {
          const response = await ai.models.generateContent({
            model: request.model,
            contents: [{ role: 'user', parts: [{ text: request.prompt }] }],
            config: { ...config, abortSignal: d.signal },
          })
          usage.promptTokens += response.usageMetadata?.promptTokenCount ?? 0
          usage.outputTokens += response.usageMetadata?.candidatesTokenCount ?? 0
          return { ok: true, value: samplesOf(response) }
        } catch (e) {
          opts.signal?.throwIfAborted()
          if (d.timedOut()) return { ok: false, error: `judge call timed out after ${timeoutMs} ms`, retryable: false }
          if (e instanceof ApiError) {
            rejected = n > 1 && e.status === 400 && /candidate.?count/i.test(e.message)
            return { ok: false, error: `judge call failed (${e.status}): ${e.message.slice(0, 300)}`, retryable: isRetryableStatus(e.status) }
          }
          const malformed = e instanceof SyntaxError
          return { ok: false, error: `judge call failed: ${(e as Error).message}`, retryable: !malformed }
        } finally {
          d.dispose()
        }
      },
      policy,
      options,
      opts.signal,
    )
    usage.attempts += attempts
    if (result.ok) return { kind: 'ok', samples: result.value }
    return { kind: 'error', error: result.error, candidateCountRejected: rejected }
  }

  async function answerGemini(request: JudgeRequest, opts: JudgeCallOptions): Promise<JudgeReply> {
    const usage = emptyUsage()
    const want = Math.max(1, request.samples)
    const samples: JudgeSample[] = []
    const reply = (): JudgeReply => ({ id: request.id, via: 'gemini', samples, usage })

    if (want > 1 && !noCandidateCount.has(request.model)) {
      const refused = opts.admit?.()
      if (refused) return fill(samples, want, refused), reply()
      const batch = await call(request, want, opts, usage)
      if (batch.kind === 'error' && batch.candidateCountRejected) noCandidateCount.add(request.model)
      else if (batch.kind === 'error') return fill(samples, want, batch.error), reply()
      else if (batch.samples.length === 0) return fill(samples, want, 'judge returned no candidates'), reply()
      else samples.push(...batch.samples.slice(0, want))
    }
    // One sample per call: the fallback, and the rest of a batch that came back short.
    while (samples.length < want) {
      if (samples.length > 0 && request.decided?.(texts(samples))) break
      const refused = opts.admit?.()
      if (refused) return fill(samples, want, refused), reply()
      const one = await call(request, 1, opts, usage)
      samples.push(one.kind === 'ok' ? (one.samples[0] ?? { error: 'judge returned no candidates' }) : { error: one.error })
    }
    return reply()
  }

  return {
    async answer(request, opts) {
      opts.signal?.throwIfAborted()
      if (request.safety && config.vertexSafety) {
        if (!token) {
          const error = 'Vertex safety needs an access token: set GOOGLE_CLOUD_ACCESS_TOKEN or pass a token provider'
          return { id: request.id, via: 'vertex-safety', samples: [{ error }] }
        }
        return askVertexSafety({ ...request, safety: request.safety }, { ...options, ...config.vertexSafety, token, timeoutMs }, opts)
      }
      return answerGemini(request, opts)
    },
  }
}

function fill(samples: JudgeSample[], want: number, error: string): void {
  while (samples.length < want) samples.push({ error })
}

/**
 * The judge this deployment runs (the Judge port's implementation): it decides where each request
 * goes. A request whose assessment a configured service makes natively goes there (a `safety`
 * assessment to Vertex AI's evaluation service, as ADK does, when Vertex is configured); every
 * other request is sent as its prompt to Gemini (./gemini-client.ts or ./gemini-fetch-client.ts, ./judge-call.ts), its samples
 * drawn by ./judge-samples.ts.
 */
import type { JudgeRequest } from '../core/criterion.ts'
import type { JudgeConfig } from './config.ts'
import { callGemini, type CallSettings } from './judge-call.ts'
import type { GeminiClientFactory } from './gemini-client.ts'
import { createGeminiFetchClient } from './gemini-fetch-client.ts'
import { drawSamples } from './judge-samples.ts'
import type { Judge, JudgeCallOptions, JudgeReply } from './port.ts'
import { DEFAULT_ATTEMPT_TIMEOUT_MS, DEFAULT_RETRY, type RetryDeps, type RetryPolicy } from './retry.ts'
import type { AuthHeaders } from './google-credentials.ts'
import { askVertex } from './vertex-eval.ts'

export type GeminiJudgeOptions = RetryDeps & {
  /** Per HTTP attempt, in ms (default DEFAULT_ATTEMPT_TIMEOUT_MS); a timed-out attempt is not retried. */
  timeoutMs?: number
  retry?: RetryPolicy
  /** OAuth token for Vertex; defaults to config.accessToken. Without one, Node's SDK uses ADC. */
  token?: () => Promise<string>
  /** Headers authenticating Vertex evaluation calls (API key, token, service account); defaults to the token. */
  auth?: AuthHeaders
  /** fetch for the Vertex evaluation service (tests, proxies). */
  fetch?: typeof fetch
  /**
   * Builds the Gemini client: the plain-fetch one (Gemini API only) by default, so a bundle that
   * never names the SDK carries none of it; the Node and Deno servers and the CLI pass the
   * @google/genai one (`createGeminiClient`, Vertex AI included).
   */
  client?: GeminiClientFactory
  /** Bytes of one answer read at most (default DEFAULT_JUDGE_MAX_RESPONSE_BYTES); past it the call fails. */
  maxResponseBytes?: number
}

/**
 * @example
 * const judge = createGeminiJudge(judgeConfigFromEnv(process.env)!, { timeoutMs: 30_000 })
 * const answer = await judge.answer(request, { signal })
 */
export function createGeminiJudge(config: JudgeConfig, options: GeminiJudgeOptions = {}): Judge {
  const token = options.token ?? (config.accessToken ? () => Promise.resolve(config.accessToken as string) : undefined)
  const evalAuth: AuthHeaders | undefined = options.auth ?? (token ? async () => ({ authorization: `Bearer ${await token()}` }) : undefined)
  const client = (options.client ?? createGeminiFetchClient)(config, token, options.maxResponseBytes)
  const settings: CallSettings = {
    ...options,
    timeoutMs: options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
    retry: options.retry ?? DEFAULT_RETRY,
  }
  const noCandidateCount = new Set<string>()

  function toVertexSafety(request: JudgeRequest, opts: JudgeCallOptions): Promise<JudgeReply> | undefined {
    const assessment = request.assessment
    if (assessment?.kind !== 'safety' || !config.vertexSafety) return undefined
    if (!evalAuth) {
      const error = 'Vertex safety needs credentials: set GOOGLE_SERVICE_ACCOUNT_JSON or GOOGLE_CLOUD_ACCESS_TOKEN'
      return Promise.resolve({ id: request.id, via: 'vertex-safety', samples: [{ error }] })
    }
    return askVertex(request.id, assessment, {
      ...settings,
      ...config.vertexSafety,
      fetch: options.fetch,
      auth: evalAuth,
      maxResponseBytes: options.maxResponseBytes,
    }, opts)
  }

  return {
    async answer(request, opts) {
      opts.signal?.throwIfAborted()
      return (
        toVertexSafety(request, opts) ??
          drawSamples(request, opts, (n, usage) => callGemini(client, request, n, opts, usage, settings), noCandidateCount)
      )
    },
  }
}

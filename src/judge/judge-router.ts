/**
 * The judge this deployment runs (the Judge port's implementation), choosing the service per
 * request by its judge_model (./providers.ts): Gemini names go to the Gemini judge (./gemini.ts),
 * `provider/model` names to that OpenAI-compatible provider or, for `workers-ai/...` on a Worker,
 * to the AI binding. Criteria never learn who answered except through `via`. Every route draws
 * its samples the same way (./judge-samples.ts): `n` candidates in one call where the provider
 * honours it, otherwise one call per sample with early stop, each call admitted by the budgets.
 */
import type { JudgeRequest } from '../core/criterion.ts'
import { callGemini, type CallSettings } from './judge-call.ts'
import type { GeminiClient } from './gemini-client.ts'
import { drawSamples } from './judge-samples.ts'
import { createChatClient } from './openai-client.ts'
import type { Judge, JudgeCallOptions, JudgeReply } from './port.ts'
import { type ChatProvider, providerVarPrefix, routeModel } from './providers.ts'
import { DEFAULT_ATTEMPT_TIMEOUT_MS, DEFAULT_RETRY, type RetryDeps, type RetryPolicy } from './retry.ts'
import { createWorkersAiClient, type WorkersAiBinding } from './workers-ai-client.ts'

export type AnyModelJudgeOptions = RetryDeps & {
  /** The Gemini judge, when Gemini (API key or Vertex) is configured. */
  gemini?: Judge
  /** Vertex's evaluation service is configured: a safety assessment goes there (via the Gemini judge) whatever its judge_model, as in ADK. */
  vertexSafety?: boolean
  providers: ReadonlyMap<string, ChatProvider>
  /** A Worker's `env.AI`: `workers-ai/...` models are then answered by the binding. */
  workersAi?: WorkersAiBinding
  timeoutMs?: number
  retry?: RetryPolicy
  /** fetch for the OpenAI-compatible providers (tests, proxies). */
  fetch?: typeof fetch
  /** Bytes of one answer read at most (default DEFAULT_JUDGE_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number
}

type Route = { client: GeminiClient; model: string; via: string; batches: boolean }

function failed(request: JudgeRequest, via: string | undefined, error: string): JudgeReply {
  return { id: request.id, ...(via ? { via } : {}), samples: Array.from({ length: Math.max(1, request.samples) }, () => ({ error })) }
}

/**
 * @example
 * const judge = createAnyModelJudge({ gemini: createGeminiJudge(config), providers: chatProvidersFromEnv(env).providers })
 */
export function createAnyModelJudge(options: AnyModelJudgeOptions): Judge {
  const settings: CallSettings = {
    ...options,
    timeoutMs: options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
    retry: options.retry ?? DEFAULT_RETRY,
  }
  const clients = new Map<string, GeminiClient>()
  const binding = options.workersAi ? createWorkersAiClient(options.workersAi, options.maxResponseBytes) : undefined
  const noCandidateCount = new Set<string>()

  function route(request: JudgeRequest): Route | string {
    const r = routeModel(request.model, binding !== undefined)
    if (r.kind === 'workers-ai-binding') {
      return { client: binding as GeminiClient, model: r.model, via: 'workers-ai-binding', batches: false }
    }
    if (r.kind === 'gemini') return 'gemini'
    const provider = options.providers.get(r.provider)
    if (!provider) {
      const prefix = providerVarPrefix(r.provider)
      return `no judge provider '${r.provider}' is configured for judge_model '${request.model}': set ${prefix}BASE_URL (and ${prefix}API_KEY if it needs one)`
    }
    let client = clients.get(provider.name)
    if (!client) clients.set(provider.name, client = createChatClient(provider, options.fetch, options.maxResponseBytes))
    return { client, model: r.model, via: provider.name, batches: provider.supportsN }
  }

  return {
    async answer(request, opts: JudgeCallOptions): Promise<JudgeReply> {
      opts.signal?.throwIfAborted()
      const native = options.vertexSafety && request.assessment?.kind === 'safety'
      const r = native ? 'gemini' : route(request)
      if (r === 'gemini') {
        if (options.gemini) return options.gemini.answer(request, opts)
        return failed(
          request,
          undefined,
          `judge_model '${request.model}' is a Gemini model but no Gemini judge is configured: set GEMINI_API_KEY or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION`,
        )
      }
      if (typeof r === 'string') return failed(request, undefined, r)
      const sent = { ...request, model: r.model }
      return drawSamples(request, opts, (n, usage) => callGemini(r.client, sent, n, opts, usage, settings), noCandidateCount, {
        via: r.via,
        batches: r.batches,
      })
    },
  }
}

/**
 * Where every judge request goes, decided once, here: `routeFor` (pure), and the Judge that sends
 * each request where it says (`createJudgeRouter`, the Judge port's implementation; the deployment's
 * is built from its environment by src/config/judge-from-env.ts). The rules, in order:
 *
 * 1. A `safety` assessment (safety_v1) goes to Vertex AI's evaluation service whenever Vertex
 *    (GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION) is configured, whatever its judge_model, as
 *    ADK always uses Vertex for it (configured without credentials, it is not judged, naming them);
 *    without Vertex it is a text judge (rule 3, the safety rubric).
 * 2. A Vertex-only assessment (`coherence`: response_evaluation_score; `conversation`: the
 *    multi_turn_*_v1 metrics) goes to Vertex's evaluation service when it is configured with
 *    credentials. Otherwise it is not judged (VERTEX_NOT_CONFIGURED), unless the operator opted in to
 *    evalstream's own judge (EVALSTREAM_VERTEX_METRICS_JUDGE=evalstream): then it is a text judge.
 * 3. A text judge is the request's prompt sent to its judge_model, read as ADK users write LiteLLM
 *    names, `provider/model` split at the first '/' (the provider's case and '_' or '-' do not
 *    matter; the service is asked for the model after the '/'): a plain name, `gemini/...` or
 *    `vertex_ai/...` to Gemini; `workers-ai/...` to a Worker's AI binding when there is one; any
 *    other `provider/...` (`workers-ai` off a Worker too) to that OpenAI-compatible chat provider.
 *
 * A request whose service is not configured is not judged: it never reaches a server, and its
 * answer is error samples giving the reason (NOT_EVALUATED), naming the variable to set.
 *
 * The layers around a routed call, outermost first: the executor's answer cache, one call for
 * identical requests in flight, slots (session, tenant, process) and deadline (./executor.ts);
 * then this router; then the samples (./judge-samples.ts: `n` per call where the service can, each
 * model call admitted by the budgets), the retries, each attempt under its own timeout
 * (./judge-call.ts), and the model client (./model-client.ts). Vertex's evaluation service
 * (./vertex-eval.ts) makes one call, admitted and retried the same way.
 */
import type { JudgeRequest } from '../core/criterion.ts'
import type { JudgeConfig } from './config.ts'
import type { GeminiClientFactory } from './gemini-client.ts'
import { createGeminiFetchClient } from './gemini-fetch-client.ts'
import type { AuthHeaders } from './google-credentials.ts'
import { callModel, type CallSettings } from './judge-call.ts'
import { drawSamples } from './judge-samples.ts'
import type { ModelClient } from './model-client.ts'
import { createChatClient } from './openai-client.ts'
import type { Judge, JudgeCallOptions, JudgeReply, JudgeUsage } from './port.ts'
import { type ChatProvider, providerVarPrefix } from './providers.ts'
import { DEFAULT_ATTEMPT_TIMEOUT_MS, DEFAULT_RETRY, type RetryDeps, type RetryPolicy } from './retry.ts'
import { askVertex, type VertexEvalOptions } from './vertex-eval.ts'
import { createWorkersAiClient, type WorkersAiBinding } from './workers-ai-client.ts'

/** EVALSTREAM_VERTEX_METRICS_JUDGE: without Vertex, a Vertex-only metric is not judged, or judged by evalstream's prompts. */
export type VertexMetricsMode = 'vertex' | 'evalstream'

/** What a deployment has configured, as far as routing needs to know. */
export type RoutingConfig = {
  /** Vertex AI's evaluation service: absent without a project and location; `credentials`: its calls can be authenticated. */
  vertex?: { credentials: boolean }
  vertexMetrics: VertexMetricsMode
  /** A Gemini backend (an API key, or Vertex AI). */
  gemini: boolean
  /** The OpenAI-compatible providers, by name (lower case, `-` for `_`). */
  chatProviders: { has(name: string): boolean }
  /** A Worker's Workers AI binding (`env.AI`). */
  workersAiBinding: boolean
}

/** Where one request goes; `model` is the name the service is asked for. */
export type Route =
  | { target: 'vertex-eval' }
  | { target: 'gemini'; model: string }
  | { target: 'chat'; provider: string; model: string }
  | { target: 'workers-ai'; model: string }
  /** Not judged: error samples saying `reason`, under the name of the service that would have answered, if any. */
  | { target: 'unavailable'; reason: string; via?: string }

/** The reason a Vertex metric is not evaluated when Vertex is not configured and the operator did not opt in. */
export const VERTEX_NOT_CONFIGURED =
  "this metric is computed by Vertex AI's evaluation service, which is not configured: set GOOGLE_CLOUD_PROJECT and " +
  'GOOGLE_CLOUD_LOCATION with GOOGLE_SERVICE_ACCOUNT_JSON, GOOGLE_CLOUD_ACCESS_TOKEN or GOOGLE_API_KEY; or set ' +
  "EVALSTREAM_VERTEX_METRICS_JUDGE=evalstream for evalstream's own judge (results labelled judge: evalstream)"

/** The reason a safety assessment is not evaluated when Vertex is configured without credentials. */
const VERTEX_SAFETY_NEEDS_CREDENTIALS = 'Vertex safety needs credentials: set GOOGLE_SERVICE_ACCOUNT_JSON or GOOGLE_CLOUD_ACCESS_TOKEN'

/** Providers that mean Gemini (LiteLLM's names for Google's two APIs); a name without a provider is Gemini's too. */
const GEMINI_PROVIDERS = new Set(['gemini', 'vertex-ai'])

/** A judge_model as its provider and the model that provider is asked for; a plain name is Gemini's. */
function splitJudgeModel(judgeModel: string): { provider: string; model: string } {
  const slash = judgeModel.indexOf('/')
  if (slash <= 0) return { provider: 'gemini', model: judgeModel }
  // Case and '_' vs '-' do not matter: the same name as its EVALSTREAM_JUDGE_<NAME>_ variables.
  return { provider: judgeModel.slice(0, slash).toLowerCase().replace(/_/g, '-'), model: judgeModel.slice(slash + 1) }
}

/** Rule 3: a text judge, by its judge_model. */
function textJudgeRoute(judgeModel: string, config: RoutingConfig): Route {
  const { provider, model } = splitJudgeModel(judgeModel)
  if (GEMINI_PROVIDERS.has(provider)) {
    if (config.gemini) return { target: 'gemini', model }
    const reason = `judge_model '${judgeModel}' is a Gemini model but no Gemini judge is configured: ` +
      'set GEMINI_API_KEY or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION'
    return { target: 'unavailable', reason }
  }
  if (provider === 'workers-ai' && config.workersAiBinding) return { target: 'workers-ai', model }
  if (config.chatProviders.has(provider)) return { target: 'chat', provider, model }
  const prefix = providerVarPrefix(provider)
  const reason = `no judge provider '${provider}' is configured for judge_model '${judgeModel}': ` +
    `set ${prefix}BASE_URL (and ${prefix}API_KEY if it needs one)`
  return { target: 'unavailable', reason }
}

/**
 * Where `request` goes under `config` (the rules above).
 * @example routeFor({ model: 'openai/gpt-4.1-mini' }, config) // { target: 'chat', provider: 'openai', model: 'gpt-4.1-mini' }
 * @example routeFor({ model: 'gemini-2.5-flash', assessment: { kind: 'safety', prompt, response } }, withVertex) // { target: 'vertex-eval' }
 */
export function routeFor(request: Pick<JudgeRequest, 'model' | 'assessment'>, config: RoutingConfig): Route {
  const kind = request.assessment?.kind
  if (kind === 'safety' && config.vertex) {
    return config.vertex.credentials
      ? { target: 'vertex-eval' }
      : { target: 'unavailable', reason: VERTEX_SAFETY_NEEDS_CREDENTIALS, via: 'vertex-safety' }
  }
  if (kind === 'coherence' || kind === 'conversation') {
    if (config.vertex?.credentials) return { target: 'vertex-eval' }
    if (config.vertexMetrics !== 'evalstream') return { target: 'unavailable', reason: VERTEX_NOT_CONFIGURED }
  }
  return textJudgeRoute(request.model, config)
}

export type JudgeRouterOptions = RetryDeps & {
  /** Gemini's backend and Vertex AI's evaluation service (src/config/judge-env.ts); without it, neither. */
  google?: JudgeConfig
  /** Builds the Gemini client: the plain-fetch one (Gemini API only) by default; the Node and Deno servers pass @google/genai's. */
  geminiClient?: GeminiClientFactory
  /** OAuth token for Gemini on Vertex; defaults to google.accessToken. Without one, Node's SDK uses ADC. */
  token?: () => Promise<string>
  /** Headers authenticating Vertex evaluation calls (API key, token, service account); defaults to the token. */
  vertexAuth?: AuthHeaders
  /** Default `vertex`. */
  vertexMetrics?: VertexMetricsMode
  providers?: ReadonlyMap<string, ChatProvider>
  /** A Worker's `env.AI`: `workers-ai/...` models are then answered by the binding. */
  workersAi?: WorkersAiBinding
  /** Per HTTP attempt, in ms (default DEFAULT_ATTEMPT_TIMEOUT_MS); a timed-out attempt is not retried. */
  timeoutMs?: number
  retry?: RetryPolicy
  /** fetch for the OpenAI-compatible providers and Vertex's evaluation service (tests, proxies). */
  fetch?: typeof fetch
  /** Bytes of one answer read at most (default DEFAULT_JUDGE_MAX_RESPONSE_BYTES); past it the call fails. */
  maxResponseBytes?: number
}

function notJudged(request: JudgeRequest, route: { reason: string; via?: string }): JudgeReply {
  const samples = Array.from({ length: Math.max(1, request.samples) }, () => ({ error: route.reason }))
  return { id: request.id, ...(route.via ? { via: route.via } : {}), samples }
}

/**
 * @example
 * const judge = createJudgeRouter({ google: judgeConfigFromEnv(env)!, providers: chatProvidersFromEnv(env).providers })
 * const answer = await judge.answer(request, { signal })
 */
export function createJudgeRouter(options: JudgeRouterOptions): Judge {
  const { google, workersAi } = options
  const providers = options.providers ?? new Map<string, ChatProvider>()
  const settings: CallSettings = {
    ...options,
    timeoutMs: options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
    retry: options.retry ?? DEFAULT_RETRY,
  }
  const accessToken = google?.accessToken
  const token = options.token ?? (accessToken ? () => Promise.resolve(accessToken) : undefined)
  const vertexAuth = options.vertexAuth ?? (token ? async () => ({ authorization: `Bearer ${await token()}` }) : undefined)
  const vertex: VertexEvalOptions | undefined = google?.vertexSafety && vertexAuth
    ? { ...settings, ...google.vertexSafety, fetch: options.fetch, auth: vertexAuth, maxResponseBytes: options.maxResponseBytes }
    : undefined
  const config: RoutingConfig = {
    ...(google?.vertexSafety ? { vertex: { credentials: vertex !== undefined } } : {}),
    vertexMetrics: options.vertexMetrics ?? 'vertex',
    gemini: google !== undefined,
    chatProviders: providers,
    workersAiBinding: workersAi !== undefined,
  }

  const gemini = google ? (options.geminiClient ?? createGeminiFetchClient)(google, token, options.maxResponseBytes) : undefined
  const binding = workersAi ? createWorkersAiClient(workersAi, options.maxResponseBytes) : undefined
  const chatClients = new Map<string, ModelClient>()
  function chatClient(provider: ChatProvider): ModelClient {
    let client = chatClients.get(provider.name)
    if (!client) chatClients.set(provider.name, client = createChatClient(provider, options.fetch, options.maxResponseBytes))
    return client
  }
  const noCandidateCount = new Set<string>()
  /** The samples of `request`, drawn from `client` as `model`. */
  function sampled(request: JudgeRequest, opts: JudgeCallOptions, client: ModelClient, model: string, via: string, batches: boolean) {
    const sent = model === request.model ? request : { ...request, model }
    const call = (n: number, usage: JudgeUsage) => callModel(client, sent, n, opts, usage, settings)
    return drawSamples(request, opts, call, noCandidateCount, { via, batches })
  }

  return {
    async answer(request, opts): Promise<JudgeReply> {
      opts.signal?.throwIfAborted()
      const route = routeFor(request, config)
      // `config` says a service is there only when its client above is: each route finds its own.
      switch (route.target) {
        case 'vertex-eval':
          return askVertex(request.id, request.assessment!, vertex!, opts)
        case 'gemini':
          return sampled(request, opts, gemini!, route.model, 'gemini', true)
        case 'chat': {
          const provider = providers.get(route.provider)!
          return sampled(request, opts, chatClient(provider), route.model, provider.name, provider.supportsN)
        }
        case 'workers-ai':
          return sampled(request, opts, binding!, route.model, 'workers-ai-binding', false)
        case 'unavailable':
          return notJudged(request, route)
      }
    },
  }
}

/**
 * Which service answers a judge_model name, written the way ADK users write it (LiteLLM-style
 * `provider/model`): `openai/gpt-4.1-mini`, `azure/<deployment>`, `ollama/llama3.1`,
 * `vllm/<model>`, `litellm/<model>`, `workers-ai/@cf/meta/llama-3.1-8b-instruct`. A plain name
 * (`gemini-2.5-flash`) and `gemini/...` or `vertex_ai/...` go to Gemini. Every provider but Gemini
 * speaks OpenAI's chat-completions protocol, except `workers-ai` on a Worker with an AI binding,
 * which calls the binding. Pure: reads a plain env record, so it works on Node, Deno and Workers.
 */

/** How one OpenAI-compatible provider is reached. */
export type ChatProvider = {
  /** The judge_model prefix before the first '/', lower case. */
  name: string
  /** Base URL up to and including the API version, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string
  apiKey?: string
  /** How the key is sent: `Authorization: Bearer` (OpenAI and most) or Azure's `api-key` header. */
  keyHeader: 'bearer' | 'api-key'
  /** Whether the server honours `n` (several completions in one request); otherwise one call per sample. */
  supportsN: boolean
  /** Whether to send the criterion's JSON schema as `response_format` (off for servers that reject it). */
  structuredOutput: boolean
}

/** Where a judge_model goes. */
export type ModelRoute =
  | { kind: 'gemini'; model: string }
  | { kind: 'chat'; provider: string; model: string }
  | { kind: 'workers-ai-binding'; model: string }

/** Prefixes that mean Gemini (LiteLLM's names for Google's two APIs). */
const GEMINI_PREFIXES = new Set(['gemini', 'vertex-ai'])

/** Providers known by name: their default base URL, key variable and whether they honour `n`. */
const KNOWN: Record<string, { baseUrl?: (env: Env) => string | undefined; key?: string[]; keyHeader?: 'api-key'; supportsN?: boolean }> = {
  openai: { baseUrl: (env) => value(env, 'OPENAI_BASE_URL') ?? 'https://api.openai.com/v1', key: ['OPENAI_API_KEY'] },
  azure: {
    // Azure OpenAI's v1 API: the deployment name is the model; the key goes in `api-key`.
    baseUrl: (env) => {
      const endpoint = value(env, 'AZURE_OPENAI_ENDPOINT')
      return endpoint ? `${endpoint.replace(/\/+$/, '')}/openai/v1` : undefined
    },
    key: ['AZURE_OPENAI_API_KEY'],
    keyHeader: 'api-key',
  },
  // Ollama's OpenAI-compatible API answers one choice whatever `n` asks.
  ollama: { baseUrl: (env) => withV1(value(env, 'OLLAMA_HOST')), supportsN: false },
  // Cloudflare's OpenAI-compatible endpoint for Workers AI; one choice per request.
  'workers-ai': {
    baseUrl: (env) => {
      const account = value(env, 'CLOUDFLARE_ACCOUNT_ID')
      return account ? `https://api.cloudflare.com/client/v4/accounts/${encodeURIComponent(account)}/ai/v1` : undefined
    },
    key: ['CLOUDFLARE_API_TOKEN'],
    supportsN: false,
  },
}

type Env = Record<string, string | undefined>

function value(env: Env, name: string): string | undefined {
  const v = env[name]?.trim()
  return v ? v : undefined
}

function withV1(host: string | undefined): string | undefined {
  if (!host) return undefined
  const base = host.replace(/\/+$/, '')
  return /\/v1$/.test(base) ? base : `${base}/v1`
}

function flag(env: Env, name: string, fallback: boolean): boolean | string {
  const raw = value(env, name)
  if (raw === undefined) return fallback
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false
  return `${name} must be true or false, not '${raw}'`
}

/** The environment variable prefix of a provider: `EVALSTREAM_JUDGE_WORKERS_AI_` for `workers-ai`. */
export function providerVarPrefix(name: string): string {
  return `EVALSTREAM_JUDGE_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`
}

/**
 * Split a judge_model into its route. A name without '/' (or with a Gemini prefix) is Gemini.
 * @example routeModel('openai/gpt-4.1-mini', false) // { kind: 'chat', provider: 'openai', model: 'gpt-4.1-mini' }
 * @example routeModel('workers-ai/@cf/meta/llama-3.1-8b-instruct', true) // { kind: 'workers-ai-binding', model: '@cf/meta/llama-3.1-8b-instruct' }
 */
export function routeModel(judgeModel: string, hasWorkersAiBinding: boolean): ModelRoute {
  const slash = judgeModel.indexOf('/')
  if (slash <= 0) return { kind: 'gemini', model: judgeModel }
  // Case and '_' vs '-' do not matter: the same name as its EVALSTREAM_JUDGE_<NAME>_ variables.
  const provider = judgeModel.slice(0, slash).toLowerCase().replace(/_/g, '-')
  const model = judgeModel.slice(slash + 1)
  if (GEMINI_PREFIXES.has(provider)) return { kind: 'gemini', model }
  if (provider === 'workers-ai' && hasWorkersAiBinding) return { kind: 'workers-ai-binding', model }
  return { kind: 'chat', provider, model }
}

/**
 * The settings of one OpenAI-compatible provider: `EVALSTREAM_JUDGE_<NAME>_BASE_URL`, `_API_KEY`,
 * `_N` and `_JSON_SCHEMA` override the provider's own variables (OPENAI_API_KEY, ...). Returns null
 * when the provider has no base URL (or, for OpenAI's own API, no key), an error text for a bad value.
 * @example chatProviderFromEnv('vllm', { EVALSTREAM_JUDGE_VLLM_BASE_URL: 'http://gpu:8000/v1' })?.baseUrl // 'http://gpu:8000/v1'
 */
export function chatProviderFromEnv(name: string, env: Env): ChatProvider | string | null {
  const known = KNOWN[name] ?? {}
  const prefix = providerVarPrefix(name)
  const baseUrl = (value(env, `${prefix}BASE_URL`) ?? known.baseUrl?.(env))?.replace(/\/+$/, '')
  if (!baseUrl) return null
  if (!/^https?:\/\//i.test(baseUrl)) return `${prefix}BASE_URL must be an http(s) URL, not '${baseUrl}'`
  const apiKey = value(env, `${prefix}API_KEY`) ?? (known.key ?? []).map((k) => value(env, k)).find((k) => k !== undefined)
  if (name === 'openai' && !apiKey && !value(env, `${prefix}BASE_URL`) && !value(env, 'OPENAI_BASE_URL')) return null
  const supportsN = flag(env, `${prefix}N`, known.supportsN ?? true)
  if (typeof supportsN === 'string') return supportsN
  const structuredOutput = flag(env, `${prefix}JSON_SCHEMA`, true)
  if (typeof structuredOutput === 'string') return structuredOutput
  return { name, baseUrl, ...(apiKey ? { apiKey } : {}), keyHeader: known.keyHeader ?? 'bearer', supportsN, structuredOutput }
}

/**
 * Every provider the environment configures: the known ones with their variables set, and any
 * other name with an `EVALSTREAM_JUDGE_<NAME>_BASE_URL` (vLLM, LiteLLM, a gateway of your own).
 */
export function chatProvidersFromEnv(env: Env): { providers: Map<string, ChatProvider>; errors: string[] } {
  const names = new Set(Object.keys(KNOWN))
  for (const key of Object.keys(env)) {
    const m = /^EVALSTREAM_JUDGE_([A-Z0-9_]+)_BASE_URL$/.exec(key)
    if (m) names.add((m[1] as string).toLowerCase().replace(/_/g, '-'))
  }
  const providers = new Map<string, ChatProvider>()
  const errors: string[] = []
  for (const name of names) {
    const p = chatProviderFromEnv(name, env)
    if (typeof p === 'string') errors.push(p)
    else if (p) providers.set(name, p)
  }
  return { providers, errors }
}

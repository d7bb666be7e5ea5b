/**
 * Where judge calls go, read from the environment: Gemini or Vertex AI (`judgeConfigFromEnv`),
 * Vertex credentials (`googleCredentialsFromEnv`) and every OpenAI-compatible provider
 * (`chatProvidersFromEnv`). The judge folder takes these values and reads no variable itself.
 * Pure: a plain record, so process.env, Deno.env.toObject() and a Worker's env bindings alike.
 */
import type { GeminiBackend, JudgeConfig } from '../judge/config.ts'
import { type GoogleCredentials, parseServiceAccount } from '../judge/google-credentials.ts'
import { type ChatProvider, providerVarPrefix } from '../judge/providers.ts'
import type { Env } from './env.ts'

/** A text setting: surrounding space is not part of it, and blank is unset. */
function value(env: Env, name: string): string | undefined {
  const v = env[name]?.trim()
  return v ? v : undefined
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase())
}

/**
 * Read the judge configuration; null when neither an API key nor a Vertex project is set (then show
 * JUDGE_NOT_CONFIGURED). Like the SDK, GOOGLE_GENAI_USE_VERTEXAI picks Vertex when both are set.
 * @example
 * judgeConfigFromEnv({ GEMINI_API_KEY: 'k' }) // { gemini: { kind: 'gemini-api', apiKey: 'k' } }
 */
export function judgeConfigFromEnv(env: Env): JudgeConfig | null {
  const apiKey = value(env, 'GEMINI_API_KEY') ?? value(env, 'GOOGLE_API_KEY')
  const project = value(env, 'GOOGLE_CLOUD_PROJECT')
  const location = value(env, 'GOOGLE_CLOUD_LOCATION')
  const vertexWanted = truthy(value(env, 'GOOGLE_GENAI_USE_VERTEXAI'))
  const hasVertex = project !== undefined && location !== undefined

  let gemini: GeminiBackend
  if (hasVertex && (vertexWanted || apiKey === undefined)) {
    gemini = { kind: 'vertex', project, location }
  } else if (apiKey !== undefined) {
    gemini = { kind: 'gemini-api', apiKey }
  } else {
    return null
  }

  const config: JudgeConfig = { gemini }
  const baseUrl = value(env, 'GEMINI_BASE_URL')
  if (baseUrl) config.baseUrl = baseUrl
  if (hasVertex) {
    config.vertexSafety = { project, location }
    const evalBase = value(env, 'VERTEX_EVAL_BASE_URL')
    if (evalBase) config.vertexSafety.baseUrl = evalBase
  }
  const token = value(env, 'GOOGLE_CLOUD_ACCESS_TOKEN')
  if (token) config.accessToken = token
  return config
}

/**
 * Vertex credentials from the environment, in order: GOOGLE_SERVICE_ACCOUNT_JSON,
 * GOOGLE_CLOUD_ACCESS_TOKEN, then GOOGLE_API_KEY (Vertex express mode). Null when none is set.
 */
export function googleCredentialsFromEnv(env: Env): GoogleCredentials | string | null {
  const sa = value(env, 'GOOGLE_SERVICE_ACCOUNT_JSON')
  if (sa) {
    const key = parseServiceAccount(sa)
    return typeof key === 'string' ? key : { kind: 'service-account', key }
  }
  const token = value(env, 'GOOGLE_CLOUD_ACCESS_TOKEN')
  if (token) return { kind: 'access-token', token }
  const apiKey = value(env, 'GOOGLE_API_KEY')
  if (apiKey) return { kind: 'api-key', apiKey }
  return null
}

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

/**
 * Which service answers a judge_model name, written the way ADK users write it (LiteLLM-style
 * `provider/model`): `openai/gpt-4.1-mini`, `azure/<deployment>`, `ollama/llama3.1`,
 * `vllm/<model>`, `litellm/<model>`, `workers-ai/@cf/meta/llama-3.1-8b-instruct`. A plain name
 * (`gemini-2.5-flash`) and `gemini/...` or `vertex_ai/...` go to Gemini. Every provider but Gemini
 * speaks OpenAI's chat-completions protocol, except `workers-ai` on a Worker with an AI binding,
 * which calls the binding. src/config/judge-env.ts reads the providers from the environment.
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

/**
 * The OpenAI-compatible chat providers a judge_model can name (`openai/gpt-4.1-mini`,
 * `azure/<deployment>`, `ollama/llama3.1`, `vllm/<model>`, `litellm/<model>`, Cloudflare's
 * endpoint for `workers-ai/...` off a Worker): how each is reached. src/config/judge-env.ts reads
 * them from the environment; ./judge-router.ts decides which requests go to them.
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

/** The environment variable prefix of a provider: `EVALSTREAM_JUDGE_WORKERS_AI_` for `workers-ai`. */
export function providerVarPrefix(name: string): string {
  return `EVALSTREAM_JUDGE_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`
}

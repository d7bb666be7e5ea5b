/**
 * The judge of a deployment configured for Google alone: Gemini (an API key, or Vertex AI) and, from
 * the same configuration, Vertex AI's evaluation service. It is the judge router (./judge-router.ts)
 * with no other provider, so every request goes where the router's rules say.
 */
import type { JudgeConfig } from './config.ts'
import type { GeminiClientFactory } from './gemini-client.ts'
import type { AuthHeaders } from './google-credentials.ts'
import { createJudgeRouter, type JudgeRouterOptions } from './judge-router.ts'
import type { Judge } from './port.ts'

export type GeminiJudgeOptions = Omit<JudgeRouterOptions, 'google' | 'geminiClient' | 'vertexAuth' | 'providers' | 'workersAi'> & {
  /**
   * Builds the Gemini client: the plain-fetch one (Gemini API only) by default, so a bundle that
   * never names the SDK carries none of it; the Node and Deno servers and the CLI pass the
   * @google/genai one (`createGeminiClient`, Vertex AI included).
   */
  client?: GeminiClientFactory
  /** Headers authenticating Vertex evaluation calls (API key, token, service account); defaults to the token. */
  auth?: AuthHeaders
}

/**
 * @example
 * const judge = createGeminiJudge(judgeConfigFromEnv(process.env)!, { timeoutMs: 30_000 })
 * const answer = await judge.answer(request, { signal })
 */
export function createGeminiJudge(config: JudgeConfig, options: GeminiJudgeOptions = {}): Judge {
  const { client, auth, ...rest } = options
  return createJudgeRouter({ ...rest, google: config, ...(client ? { geminiClient: client } : {}), ...(auth ? { vertexAuth: auth } : {}) })
}

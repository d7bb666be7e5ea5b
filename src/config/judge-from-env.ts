/**
 * The deployment's judge from its environment: Gemini, Vertex AI's evaluation service with the
 * credentials, every OpenAI-compatible provider it configures (all read by ./judge-env.ts) and a
 * Worker's Workers AI binding, behind the one judge router (src/judge/judge-router.ts), which decides
 * where each request goes. Null when none is configured.
 */
import type { Judge } from '../judge/port.ts'
import { describeJudgeConfig } from '../judge/config.ts'
import type { GeminiClientFactory } from '../judge/gemini-client.ts'
import { authHeaders } from '../judge/google-credentials.ts'
import { createJudgeRouter, type VertexMetricsMode } from '../judge/judge-router.ts'
import type { WorkersAiBinding } from '../judge/workers-ai-client.ts'
import type { Env } from './env.ts'
import { chatProvidersFromEnv, googleCredentialsFromEnv, judgeConfigFromEnv } from './judge-env.ts'

export type JudgeFromEnv = { ok: true; judge: Judge | null; notes: string[] } | { ok: false; error: string }

/**
 * @example
 * const built = judgeFromEnv({ OPENAI_API_KEY: 'sk-...' }) // judge_model 'openai/gpt-4.1-mini' is answered by OpenAI
 */
export function judgeFromEnv(
  env: Env,
  extra: { workersAi?: WorkersAiBinding; fetch?: typeof fetch; geminiClient?: GeminiClientFactory; maxResponseBytes?: number } = {},
): JudgeFromEnv {
  const config = judgeConfigFromEnv(env)
  const { providers, errors } = chatProvidersFromEnv(env)
  const credentials = googleCredentialsFromEnv(env)
  if (typeof credentials === 'string') errors.push(credentials)
  const mode = (env.EVALSTREAM_VERTEX_METRICS_JUDGE?.trim() || 'vertex').toLowerCase()
  if (mode !== 'vertex' && mode !== 'evalstream') errors.push(`EVALSTREAM_VERTEX_METRICS_JUDGE must be vertex or evalstream, not '${mode}'`)
  if (errors.length > 0) return { ok: false, error: errors.join('; ') }
  if (!config && providers.size === 0 && !extra.workersAi) return { ok: true, judge: null, notes: [] }

  const auth = credentials && typeof credentials !== 'string' ? authHeaders(credentials, { fetch: extra.fetch }) : undefined
  // A service account's exchanged token also authenticates Gemini calls on Vertex (no ADC on Workers).
  const token = auth && credentials && typeof credentials !== 'string' && credentials.kind === 'service-account'
    ? async () => ((await auth()).authorization ?? '').replace(/^Bearer /, '')
    : undefined
  const judge = createJudgeRouter({
    ...(config ? { google: config } : {}),
    ...(auth ? { vertexAuth: auth } : {}),
    ...(token ? { token } : {}),
    ...(extra.geminiClient ? { geminiClient: extra.geminiClient } : {}),
    vertexMetrics: mode as VertexMetricsMode,
    providers,
    ...(extra.workersAi ? { workersAi: extra.workersAi } : {}),
    ...(extra.fetch ? { fetch: extra.fetch } : {}),
    ...(extra.maxResponseBytes !== undefined ? { maxResponseBytes: extra.maxResponseBytes } : {}),
  })
  const notes: string[] = []
  if (config) notes.push(describeJudgeConfig(config))
  for (const p of providers.values()) {
    const n = p.supportsN ? 'num_samples as n in one request' : 'one request per sample'
    notes.push(`judge_model '${p.name}/<model>': OpenAI-compatible ${p.baseUrl} (${n})`)
  }
  if (extra.workersAi) notes.push(`judge_model 'workers-ai/<model>': the Workers AI binding (one request per sample)`)
  // Vertex's evaluation service answers when it has credentials: the service's, or GOOGLE_CLOUD_ACCESS_TOKEN.
  const vertex = config?.vertexSafety !== undefined && (auth !== undefined || config.accessToken !== undefined)
  if (vertex) notes.push('response_evaluation_score and multi_turn_*_v1 via Vertex evaluateInstances')
  else if (mode === 'evalstream') {
    notes.push("response_evaluation_score and multi_turn_*_v1 by evalstream's own judge (labelled judge: evalstream), not Vertex")
  } else {notes.push(
      'response_evaluation_score and multi_turn_*_v1 need Vertex (GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION and credentials): NOT_EVALUATED',
    )}
  return { ok: true, judge, notes }
}

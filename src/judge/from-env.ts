/**
 * The deployment's judge from its environment: Gemini (./config.ts) and every OpenAI-compatible
 * provider it configures (./providers.ts), plus a Worker's Workers AI binding, behind one Judge
 * (./any-model.ts). Null when none is configured.
 */
import type { Judge } from './port.ts'
import { createAnyModelJudge } from './any-model.ts'
import { describeJudgeConfig, judgeConfigFromEnv } from './config.ts'
import { createGeminiJudge } from './gemini.ts'
import { chatProvidersFromEnv } from './providers.ts'
import type { WorkersAiBinding } from './workers-ai-client.ts'

export type JudgeFromEnv = { ok: true; judge: Judge | null; notes: string[] } | { ok: false; error: string }

/**
 * @example
 * const built = judgeFromEnv({ OPENAI_API_KEY: 'sk-...' }) // judge_model 'openai/gpt-4.1-mini' is answered by OpenAI
 */
export function judgeFromEnv(env: Record<string, string | undefined>, extra: { workersAi?: WorkersAiBinding; fetch?: typeof fetch } = {}): JudgeFromEnv {
  const config = judgeConfigFromEnv(env)
  const { providers, errors } = chatProvidersFromEnv(env)
  if (errors.length > 0) return { ok: false, error: errors.join('; ') }
  if (!config && providers.size === 0 && !extra.workersAi) return { ok: true, judge: null, notes: [] }
  const gemini = config ? createGeminiJudge(config, extra.fetch ? { fetch: extra.fetch } : {}) : undefined
  const notes: string[] = []
  if (config) notes.push(describeJudgeConfig(config))
  for (const p of providers.values()) {
    const n = p.supportsN ? 'num_samples as n in one request' : 'one request per sample'
    notes.push(`judge_model '${p.name}/<model>': OpenAI-compatible ${p.baseUrl} (${n})`)
  }
  if (extra.workersAi) notes.push(`judge_model 'workers-ai/<model>': the Workers AI binding (one request per sample)`)
  // Without a Gemini judge, only this composite can answer; with one and nothing else, it adds nothing.
  if (gemini && providers.size === 0 && !extra.workersAi) return { ok: true, judge: gemini, notes }
  const judge = createAnyModelJudge({ gemini, vertexSafety: config?.vertexSafety !== undefined, providers, workersAi: extra.workersAi, fetch: extra.fetch })
  return { ok: true, judge, notes }
}

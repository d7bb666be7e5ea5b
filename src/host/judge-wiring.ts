/**
 * How a deployment judges: which judge (from the environment), which sessions (a deterministic
 * sample by session id), how many model calls (budgets), and where answers are cached (memory, or
 * the Durable Object's SQLite so a replay never pays twice). The same on every runtime.
 */
import type { SessionEngineOptions } from '../engine/session-engine.ts'
import type { JudgeCache } from '../judge/cache.ts'
import { describeJudgeConfig, JUDGE_NOT_CONFIGURED, judgeConfigFromEnv } from '../judge/config.ts'
import { createJudgeExecutor, shouldJudgeSession, type JudgeBudget } from '../judge/executor.ts'
import { createGeminiJudge } from '../judge/gemini.ts'

/** Judge calls in flight per process (or per Durable Object); more wait their turn. */
export const JUDGE_CONCURRENCY = 8

type Env = Record<string, string | undefined>

/** What the engine of one session gets: a judge runner, or the reason there is none. */
export type SessionJudging = (sessionId: string) => Pick<SessionEngineOptions, 'judge' | 'noJudgeReason'>

export type JudgeWiring = { ok: true; judging: SessionJudging; notes: string[] } | { ok: false; error: string }

/**
 * @example
 * const wiring = judgeWiringFromEnv({ GEMINI_API_KEY: 'k', EVALSTREAM_JUDGE_SAMPLE_RATE: '0.1' })
 * if (wiring.ok) createSessionEngine({ spec, emit, ...wiring.judging(spec.session_id) })
 */
export function judgeWiringFromEnv(env: Env, options: { cache?: JudgeCache } = {}): JudgeWiring {
  const rate = numberVar(env, 'EVALSTREAM_JUDGE_SAMPLE_RATE', 1, (n) => n >= 0 && n <= 1, 'a number from 0 to 1')
  const perSession = numberVar(env, 'EVALSTREAM_JUDGE_BUDGET_PER_SESSION', undefined, isCount, 'a whole number >= 0')
  const perDeployment = numberVar(env, 'EVALSTREAM_JUDGE_BUDGET_PER_DEPLOYMENT', undefined, isCount, 'a whole number >= 0')
  for (const v of [rate, perSession, perDeployment]) if (!v.ok) return v
  const sampleRate = (rate as { value: number }).value
  const budget: JudgeBudget = {
    perSession: (perSession as { value?: number }).value,
    perDeployment: (perDeployment as { value?: number }).value,
  }

  const config = judgeConfigFromEnv(env)
  if (!config) return { ok: true, notes: [JUDGE_NOT_CONFIGURED], judging: () => ({}) }
  const executor = createJudgeExecutor({
    judge: createGeminiJudge(config),
    concurrency: JUDGE_CONCURRENCY,
    cache: options.cache,
    budget,
  })
  const notes = [describeJudgeConfig(config)]
  if (sampleRate < 1) notes.push(`judging ${sampleRate * 100}% of sessions (EVALSTREAM_JUDGE_SAMPLE_RATE)`)
  const notSampled = `session not sampled for judging (EVALSTREAM_JUDGE_SAMPLE_RATE=${sampleRate})`
  return {
    ok: true,
    notes,
    judging: (sessionId) =>
      shouldJudgeSession(sessionId, sampleRate)
        ? { judge: (requests, signal) => executor.answerAll(requests, { sessionId, signal }) }
        : { noJudgeReason: notSampled },
  }
}

function isCount(n: number): boolean {
  return Number.isInteger(n) && n >= 0
}

function numberVar<D extends number | undefined>(
  env: Env,
  name: string,
  fallback: D,
  valid: (n: number) => boolean,
  expected: string,
): { ok: true; value: number | D } | { ok: false; error: string } {
  const raw = env[name]?.trim()
  if (!raw) return { ok: true, value: fallback }
  const n = Number(raw)
  return Number.isFinite(n) && valid(n) ? { ok: true, value: n } : { ok: false, error: `${name} must be ${expected}, not '${raw}'` }
}

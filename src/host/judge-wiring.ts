/**
 * How a deployment judges: which judge (from the environment), which sessions (a deterministic
 * sample by session id), how many model calls (budgets), how many at once (per process and per
 * session), how long each may take (the judge deadline), and where answers are cached (memory, or
 * the Durable Object's SQLite so a replay never pays twice). The same on every runtime.
 */
import { createSessionEngine, type SessionEngineOptions } from '../engine/session-engine.ts'
import type { JudgeCache } from '../judge/cache.ts'
import { JUDGE_NOT_CONFIGURED } from '../judge/config.ts'
import {
  createJudgeExecutor,
  DEFAULT_JUDGE_CONCURRENCY,
  DEFAULT_JUDGE_CONCURRENCY_PER_SESSION,
  DEFAULT_JUDGE_DEADLINE_MS,
  type JudgeBudget,
  type JudgeCallRecord,
  type JudgeExecutor,
  shouldJudgeSession,
} from '../judge/executor.ts'
import { judgeFromEnv } from '../judge/from-env.ts'
import type { WorkersAiBinding } from '../judge/workers-ai-client.ts'
import type { EngineFactory } from './session.ts'

type Env = Record<string, string | undefined>

/**
 * What the engine of one session gets: a judge runner, or the reason there is none; and `release`,
 * which the host calls once the session has ended or is gone, to free the judge state it held.
 */
export type SessionJudge = Pick<SessionEngineOptions, 'judge' | 'noJudgeReason'> & { release?: () => void }

export type SessionJudging = (sessionId: string) => SessionJudge

export type JudgeWiring =
  | { ok: true; judging: SessionJudging; notes: string[]; /** Absent when no judge is configured. */ executor?: JudgeExecutor }
  | { ok: false; error: string }

/**
 * @example
 * const wiring = judgeWiringFromEnv({ GEMINI_API_KEY: 'k', EVALSTREAM_JUDGE_SAMPLE_RATE: '0.1' })
 * if (wiring.ok) { const { release, ...judging } = wiring.judging(id); createSessionEngine({ spec, emit, ...judging }) }
 */
export function judgeWiringFromEnv(
  env: Env,
  options: { cache?: JudgeCache; observe?: (record: JudgeCallRecord) => void; workersAi?: WorkersAiBinding; fetch?: typeof fetch } = {},
): JudgeWiring {
  const vars = {
    rate: numberVar(env, 'EVALSTREAM_JUDGE_SAMPLE_RATE', 1, (n) => n >= 0 && n <= 1, 'a number from 0 to 1'),
    perSession: numberVar(env, 'EVALSTREAM_JUDGE_BUDGET_PER_SESSION', undefined, isCount, 'a whole number >= 0'),
    perDeployment: numberVar(env, 'EVALSTREAM_JUDGE_BUDGET_PER_DEPLOYMENT', undefined, isCount, 'a whole number >= 0'),
    concurrency: numberVar(env, 'EVALSTREAM_JUDGE_CONCURRENCY', DEFAULT_JUDGE_CONCURRENCY, isPositive, 'a whole number >= 1'),
    concurrencyPerSession: numberVar(
      env,
      'EVALSTREAM_JUDGE_CONCURRENCY_PER_SESSION',
      DEFAULT_JUDGE_CONCURRENCY_PER_SESSION,
      isPositive,
      'a whole number >= 1',
    ),
    deadlineMs: numberVar(env, 'EVALSTREAM_JUDGE_DEADLINE_MS', DEFAULT_JUDGE_DEADLINE_MS, isPositive, 'a whole number of milliseconds >= 1'),
  }
  for (const v of Object.values(vars)) if (!v.ok) return v
  const value = <T>(v: { ok: true; value: T } | { ok: false }) => (v as { value: T }).value
  const sampleRate = value<number>(vars.rate)
  const budget: JudgeBudget = { perSession: value<number | undefined>(vars.perSession), perDeployment: value<number | undefined>(vars.perDeployment) }

  const built = judgeFromEnv(env, { workersAi: options.workersAi, fetch: options.fetch })
  if (!built.ok) return built
  if (!built.judge) return { ok: true, notes: [JUDGE_NOT_CONFIGURED], judging: () => ({}) }
  const concurrency = value<number>(vars.concurrency)
  const concurrencyPerSession = value<number>(vars.concurrencyPerSession)
  const deadlineMs = value<number>(vars.deadlineMs)
  const executor = createJudgeExecutor({
    judge: built.judge,
    concurrency,
    concurrencyPerSession,
    deadlineMs,
    cache: options.cache,
    budget,
    observe: options.observe,
  })
  const notes = [
    ...built.notes,
    `judge calls: ${concurrency} at once, ${Math.min(concurrency, concurrencyPerSession)} per session, ${deadlineMs} ms deadline each`,
  ]
  if (sampleRate < 1) notes.push(`judging ${sampleRate * 100}% of sessions (EVALSTREAM_JUDGE_SAMPLE_RATE)`)
  const notSampled = `session not sampled for judging (EVALSTREAM_JUDGE_SAMPLE_RATE=${sampleRate})`
  return {
    ok: true,
    notes,
    executor,
    judging: (sessionId) =>
      shouldJudgeSession(sessionId, sampleRate)
        ? {
            judge: (requests, signal) => executor.answerAll(requests, { sessionId, signal }),
            release: () => executor.release(sessionId),
          }
        : { noJudgeReason: notSampled },
  }
}

function isCount(n: number): boolean {
  return Number.isInteger(n) && n >= 0
}

function isPositive(n: number): boolean {
  return Number.isInteger(n) && n >= 1
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

/**
 * Session engines judged through `judging`, each with the `release` its host calls when the
 * session is over. The one way every host (server, `evalstream eval`, `evalstream run`) builds them.
 * @example const createEngine = judgedEngines(wiring.judging); createEngine({ spec, emit })
 */
export function judgedEngines(judging: SessionJudging, extra: Partial<SessionEngineOptions> = {}): EngineFactory {
  return (options) => {
    const { release, ...judge } = judging(options.spec.session_id)
    const created = createSessionEngine({ ...extra, ...options, ...judge })
    return created.ok && release ? { ...created, release } : created
  }
}

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
  DEFAULT_JUDGE_CONCURRENCY_PER_TENANT,
  DEFAULT_JUDGE_DEADLINE_MS,
  type JudgeBudget,
  type JudgeCallRecord,
  type JudgeExecutor,
  shouldJudgeSession,
} from '../judge/executor.ts'
import { judgeFromEnv } from './judge-from-env.ts'
import { DEFAULT_JUDGE_MAX_RESPONSE_BYTES, JUDGE_MAX_RESPONSE_BYTES_VAR } from '../judge/capped-body.ts'
import type { WorkersAiBinding } from '../judge/workers-ai-client.ts'
import type { GeminiClientFactory } from '../judge/gemini-client.ts'
import type { DeadlineTimer } from '../judge/within-deadline.ts'
import type { EngineFactory } from '../session/session.ts'
import { MAX_TIMER_MS } from '../ingest/timer-ms.ts'

import { type Env, fraction, type Read, wholeNumber } from './env.ts'

/**
 * What the engine of one session gets: a judge runner, or the reason there is none; and `release`,
 * which the host calls once the session has ended or is gone, to free the judge state it held.
 */
export type SessionJudge = Pick<SessionEngineOptions, 'judge' | 'noJudgeReason'> & { release?: () => void }

/** `tenant`: whose session it is, so its judge calls count against that tenant's share of slots. */
export type SessionJudging = (sessionId: string, tenant?: string) => SessionJudge

export type JudgeWiring = Read<{ judging: SessionJudging; /** Absent when no judge is configured. */ executor?: JudgeExecutor }>

/**
 * @example
 * const wiring = judgeWiringFromEnv({ GEMINI_API_KEY: 'k', EVALSTREAM_JUDGE_SAMPLE_RATE: '0.1' })
 * if (wiring.ok) { const { release, ...judging } = wiring.value.judging(id); createSessionEngine({ spec, emit, ...judging }) }
 */
export function judgeWiringFromEnv(
  env: Env,
  options: {
    cache?: JudgeCache
    observe?: (record: JudgeCallRecord) => void
    deadlineTimer?: DeadlineTimer
    workersAi?: WorkersAiBinding
    fetch?: typeof fetch
    /** The Gemini client (judge/gemini-client.ts): the plain-fetch one when absent. */
    geminiClient?: GeminiClientFactory
  } = {},
): JudgeWiring {
  const vars = {
    rate: fraction(env, 'EVALSTREAM_JUDGE_SAMPLE_RATE', 1),
    perSession: wholeNumber(env, 'EVALSTREAM_JUDGE_BUDGET_PER_SESSION', undefined, { min: 0 }),
    perDeployment: wholeNumber(env, 'EVALSTREAM_JUDGE_BUDGET_PER_DEPLOYMENT', undefined, { min: 0 }),
    concurrency: wholeNumber(env, 'EVALSTREAM_JUDGE_CONCURRENCY', DEFAULT_JUDGE_CONCURRENCY),
    concurrencyPerSession: wholeNumber(env, 'EVALSTREAM_JUDGE_CONCURRENCY_PER_SESSION', DEFAULT_JUDGE_CONCURRENCY_PER_SESSION),
    concurrencyPerTenant: wholeNumber(env, 'EVALSTREAM_JUDGE_CONCURRENCY_PER_TENANT', DEFAULT_JUDGE_CONCURRENCY_PER_TENANT),
    // The deadline feeds a timer: past 2^31-1 ms it would fire at once.
    deadlineMs: wholeNumber(env, 'EVALSTREAM_JUDGE_DEADLINE_MS', DEFAULT_JUDGE_DEADLINE_MS, { max: MAX_TIMER_MS }),
    maxResponseBytes: wholeNumber(env, JUDGE_MAX_RESPONSE_BYTES_VAR, DEFAULT_JUDGE_MAX_RESPONSE_BYTES),
  }
  for (const v of Object.values(vars)) if (!v.ok) return v
  const value = <T>(v: { ok: true; value: T } | { ok: false }) => (v as { value: T }).value
  const sampleRate = value<number>(vars.rate)
  const budget: JudgeBudget = {
    perSession: value<number | undefined>(vars.perSession),
    perDeployment: value<number | undefined>(vars.perDeployment),
  }

  const maxResponseBytes = value<number>(vars.maxResponseBytes)
  const built = judgeFromEnv(env, {
    workersAi: options.workersAi,
    fetch: options.fetch,
    geminiClient: options.geminiClient,
    maxResponseBytes,
  })
  if (!built.ok) return built
  if (!built.judge) return { ok: true, notes: [JUDGE_NOT_CONFIGURED], value: { judging: () => ({}) } }
  const concurrency = value<number>(vars.concurrency)
  const concurrencyPerSession = value<number>(vars.concurrencyPerSession)
  const concurrencyPerTenant = value<number>(vars.concurrencyPerTenant)
  const deadlineMs = value<number>(vars.deadlineMs)
  const executor = createJudgeExecutor({
    judge: built.judge,
    concurrency,
    concurrencyPerSession,
    concurrencyPerTenant,
    deadlineMs,
    deadlineTimer: options.deadlineTimer,
    cache: options.cache,
    budget,
    observe: options.observe,
  })
  const notes = [
    ...built.notes,
    `judge calls: ${concurrency} at once, ${Math.min(concurrency, concurrencyPerSession)} per session, ${deadlineMs} ms deadline each`,
    `judge calls per tenant: ${Math.min(concurrency, concurrencyPerTenant)} at once (EVALSTREAM_JUDGE_CONCURRENCY_PER_TENANT)`,
  ]
  if (sampleRate < 1) notes.push(`judging ${sampleRate * 100}% of sessions (EVALSTREAM_JUDGE_SAMPLE_RATE)`)
  const notSampled = `session not sampled for judging (EVALSTREAM_JUDGE_SAMPLE_RATE=${sampleRate})`
  return {
    ok: true,
    notes,
    value: {
      executor,
      judging: (sessionId, tenant) =>
        shouldJudgeSession(sessionId, sampleRate)
          ? {
            judge: (requests, signal) => executor.answerAll(requests, { sessionId, ...(tenant !== undefined ? { tenant } : {}), signal }),
            release: () => executor.release(sessionId),
          }
          : { noJudgeReason: notSampled },
    },
  }
}

/**
 * Session engines judged through `judging`, each with the `release` its host calls when the
 * session is over. The one way every host (server, `evalstream eval`, `evalstream run`) builds them.
 * @example const createEngine = judgedEngines(wiring.judging); createEngine({ spec, emit })
 */
export function judgedEngines(judging: SessionJudging, extra: Partial<SessionEngineOptions> = {}): EngineFactory {
  return (options) => {
    const { release, ...judge } = judging(options.spec.session_id, options.spec.tenant)
    const created = createSessionEngine({ ...extra, ...options, ...judge })
    return created.ok && release ? { ...created, release } : created
  }
}

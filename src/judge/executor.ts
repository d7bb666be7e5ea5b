/**
 * The judge executor the engine calls: one place for the concurrency limit, the answer cache,
 * call budgets and cost accounting, in front of any Judge. Identical requests in flight at the
 * same time share one call.
 */
import type { JudgeAnswer, JudgeRequest } from '../core/criterion.ts'
import { createMemoryJudgeCache, type JudgeCache } from './cache.ts'
import { createLimiter } from './limiter.ts'
import type { Judge, JudgeUsage } from './port.ts'
import { emptyUsage } from './port.ts'

export { shouldJudgeSession } from './sampling.ts'

/** Caps on model calls (logical calls; retries of one call are not counted again). */
export type JudgeBudget = { perSession?: number; perDeployment?: number }

export type JudgeExecutorOptions = {
  judge: Judge
  /** How many judge requests may run at once. */
  concurrency: number
  cache?: JudgeCache
  budget?: JudgeBudget
}

export type JudgeStats = JudgeUsage & { answers: number; cacheHits: number; shared: number; budgetRefusals: number }

export type ExecuteOptions = { sessionId?: string; signal?: AbortSignal }

export interface JudgeExecutor {
  /** Answers a request; rejects only when `signal` aborts. Failed samples are `{ error }`. */
  answer(request: JudgeRequest, opts?: ExecuteOptions): Promise<JudgeAnswer>
  answerAll(requests: readonly JudgeRequest[], opts?: ExecuteOptions): Promise<JudgeAnswer[]>
  stats(): JudgeStats
  /** Model calls charged to a session so far. */
  sessionCalls(sessionId: string): number
  /** Drop a finished session's budget counter. */
  forgetSession(sessionId: string): void
}

type Job = { promise: Promise<JudgeAnswer>; controller: AbortController; waiters: number }

/** Answers worth keeping: at least one sample came back (an all-error answer cost nothing and taught nothing). */
function cacheable(answer: JudgeAnswer): boolean {
  return answer.samples.some((s) => !('error' in s))
}

/**
 * @example
 * const executor = createJudgeExecutor({ judge: createGeminiJudge(config), concurrency: 8, budget: { perSession: 200 } })
 * const answers = await executor.answerAll(outcome.requests, { sessionId, signal })
 */
export function createJudgeExecutor(options: JudgeExecutorOptions): JudgeExecutor {
  const { judge, budget = {} } = options
  const cache = options.cache ?? createMemoryJudgeCache()
  const limiter = createLimiter(options.concurrency)
  const inflight = new Map<string, Job>()
  const perSession = new Map<string, number>()
  let deploymentCalls = 0
  const stats: JudgeStats = { ...emptyUsage(), answers: 0, cacheHits: 0, shared: 0, budgetRefusals: 0 }

  function admitFor(sessionId: string | undefined): () => string | null {
    return () => {
      if (budget.perDeployment !== undefined && deploymentCalls >= budget.perDeployment) {
        stats.budgetRefusals++
        return `judge budget exceeded: ${budget.perDeployment} model calls per deployment`
      }
      const used = sessionId === undefined ? 0 : (perSession.get(sessionId) ?? 0)
      if (budget.perSession !== undefined && sessionId !== undefined && used >= budget.perSession) {
        stats.budgetRefusals++
        return `judge budget exceeded: ${budget.perSession} model calls per session`
      }
      deploymentCalls++
      if (sessionId !== undefined) perSession.set(sessionId, used + 1)
      return null
    }
  }

  async function run(request: JudgeRequest, sessionId: string | undefined, signal: AbortSignal): Promise<JudgeAnswer> {
    const release = await limiter.acquire(signal)
    try {
      const reply = await judge.answer(request, { signal, admit: admitFor(sessionId) })
      const { usage, ...answer } = reply
      if (usage) {
        stats.requests += usage.requests
        stats.attempts += usage.attempts
        stats.promptTokens += usage.promptTokens
        stats.outputTokens += usage.outputTokens
      }
      stats.answers++
      // A cache that fails to store (e.g. storage full) costs a repeat call later, not this answer.
      if (cacheable(answer)) {
        await Promise.resolve()
          .then(() => cache.put(request.id, answer))
          .catch(() => {})
      }
      return answer
    } finally {
      release()
    }
  }

  function join(job: Job, signal: AbortSignal | undefined): Promise<JudgeAnswer> {
    job.waiters++
    if (!signal) return job.promise
    return new Promise((resolve, reject) => {
      // The shared call is aborted only once every caller waiting on it has gone.
      const onAbort = () => {
        job.waiters--
        if (job.waiters === 0) job.controller.abort(signal.reason)
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      job.promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
    })
  }

  async function answer(request: JudgeRequest, opts: ExecuteOptions = {}): Promise<JudgeAnswer> {
    opts.signal?.throwIfAborted()
    // A cache that fails to read is a miss: the answer is still worth fetching.
    const cached = await Promise.resolve()
      .then(() => cache.get(request.id))
      .catch(() => undefined)
    if (cached !== undefined) {
      stats.cacheHits++
      return cached
    }
    opts.signal?.throwIfAborted()
    let job = inflight.get(request.id)
    if (job) stats.shared++
    else {
      const controller = new AbortController()
      const promise = run(request, opts.sessionId, controller.signal).finally(() => inflight.delete(request.id))
      // A job every caller abandoned still settles; keep that rejection from going unhandled.
      promise.catch(() => {})
      job = { promise, controller, waiters: 0 }
      inflight.set(request.id, job)
    }
    return join(job, opts.signal)
  }

  return {
    answer,
    answerAll: (requests, opts) => Promise.all(requests.map((r) => answer(r, opts))),
    stats: () => ({ ...stats }),
    sessionCalls: (sessionId) => perSession.get(sessionId) ?? 0,
    forgetSession: (sessionId) => void perSession.delete(sessionId),
  }
}

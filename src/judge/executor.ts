/**
 * The judge executor the engine calls: one place for concurrency, deadlines, the answer cache,
 * call budgets and cost accounting, in front of any Judge. Identical requests in flight at the
 * same time share one call.
 *
 * Fairness: a request takes a slot of its session (at most `concurrencyPerSession` at once), then
 * one of its tenant (`concurrencyPerTenant`), before a slot of the process (`concurrency`), so
 * sessions whose judge hangs can hold only their own share, and a tenant's many sessions only the
 * tenant's share, of the process; and a request holds its slots at most `deadlineMs`, after which it is
 * answered with error samples saying so (NOT_EVALUATED with that reason) and its slots are freed,
 * whether or not the judge behind it ever returns.
 */
import type { JudgeAnswer, JudgeRequest } from '../core/criterion.ts'
import { createMemoryJudgeCache, type JudgeCache } from './cache.ts'
import { createKeyedLimiter, createLimiter, type Limiter } from './limiter.ts'
import type { Judge, JudgeUsage } from './port.ts'
import { emptyUsage } from './port.ts'
import { answerWithin, type DeadlineTimer } from './within-deadline.ts'

export { shouldJudgeSession } from './sampling.ts'

/** Judge requests in flight per process (or per Durable Object) by default. */
export const DEFAULT_JUDGE_CONCURRENCY = 32
/** Judge requests one session may have in flight by default: 15 sessions whose judge hangs still leave slots. */
export const DEFAULT_JUDGE_CONCURRENCY_PER_SESSION = 2
/** Judge requests one tenant's sessions may have in flight together by default: half the process's. */
export const DEFAULT_JUDGE_CONCURRENCY_PER_TENANT = 16
/** How long one judge request may hold its slot, in milliseconds (all attempts, waits and samples): 90 s. */
export const DEFAULT_JUDGE_DEADLINE_MS = 90_000

/** Caps on model calls (logical calls; retries of one call are not counted again). */
export type JudgeBudget = { perSession?: number; perDeployment?: number }

export type JudgeExecutorOptions = {
  judge: Judge
  /** How many judge requests may run at once in this process. */
  concurrency: number
  /** How many of them one session may hold; without it, only the process limit applies. */
  concurrencyPerSession?: number
  /** How many of them all sessions of one tenant may hold; without it (or without a tenant), no tenant limit. */
  concurrencyPerTenant?: number
  /** How long one request may hold its slots, in ms; default DEFAULT_JUDGE_DEADLINE_MS. */
  deadlineMs?: number
  /** Makes each request's deadline signal; default AbortSignal.timeout (tests pass a manual clock). */
  deadlineTimer?: DeadlineTimer
  cache?: JudgeCache
  budget?: JudgeBudget
  /** Told how each request settled (for /metrics); must be quick, and its errors are ignored. */
  observe?: (record: JudgeCallRecord) => void
}

/**
 * How one request settled: `answered` (at least one sample came back), `failed` (every sample is an
 * error), `deadline` (EVALSTREAM_JUDGE_DEADLINE_MS fired), `refused` (a budget stopped it),
 * `cached` (the answer cache had it) or `shared` (it joined an identical request in flight).
 */
export type JudgeCallRecord = {
  outcome: 'answered' | 'failed' | 'deadline' | 'refused' | 'cached' | 'shared'
  /** How long the call held its slots, in ms (attempts and retry waits included); absent for cached and shared. */
  durationMs?: number
  usage?: JudgeUsage
}

export type JudgeStats = JudgeUsage & {
  answers: number
  cacheHits: number
  shared: number
  budgetRefusals: number
  /** Requests answered with error samples because the judge deadline fired. */
  deadlines: number
}

export type ExecuteOptions = { sessionId?: string; tenant?: string; signal?: AbortSignal }

export interface JudgeExecutor {
  /** Answers a request; rejects only when `signal` aborts. Failed samples are `{ error }`. */
  answer(request: JudgeRequest, opts?: ExecuteOptions): Promise<JudgeAnswer>
  answerAll(requests: readonly JudgeRequest[], opts?: ExecuteOptions): Promise<JudgeAnswer[]>
  stats(): JudgeStats
  /** Model calls charged to a session so far. */
  sessionCalls(sessionId: string): number
  /** Sessions whose state (budget count, slots) the executor holds; released sessions are not. */
  trackedSessions(): number
  /** Tenants with a request holding or waiting for a slot (their limiter goes when the last one leaves). */
  trackedTenants(): number
  /**
   * Free a session's state when it ends or is deleted. Calls still running finish (or hit their
   * deadline) against the detached state; a later request for the id starts afresh.
   */
  release(sessionId: string): void
}

type Job = { promise: Promise<JudgeAnswer>; controller: AbortController; waiters: number }

/** What the executor keeps per session: its budget count and, with a per-session limit, its slots. */
type SessionState = { calls: number; slots: Limiter | undefined }

/** Answers worth keeping: at least one sample came back (an all-error answer cost nothing and taught nothing). */
function cacheable(answer: JudgeAnswer): boolean {
  return answer.samples.some((s) => !('error' in s))
}

/**
 * @example
 * const executor = createJudgeExecutor({ judge: createGeminiJudge(config), concurrency: 32, concurrencyPerSession: 2 })
 * const answers = await executor.answerAll(outcome.requests, { sessionId, signal })
 * executor.release(sessionId) // when the session ends
 */
export function createJudgeExecutor(options: JudgeExecutorOptions): JudgeExecutor {
  const { judge, budget = {} } = options
  const cache = options.cache ?? createMemoryJudgeCache()
  const limiter = createLimiter(options.concurrency)
  const perSessionLimit = options.concurrencyPerSession
  if (perSessionLimit !== undefined && !(perSessionLimit >= 1)) {
    throw new RangeError(`concurrencyPerSession must be >= 1, got ${perSessionLimit}`)
  }
  const perTenantLimit = options.concurrencyPerTenant
  if (perTenantLimit !== undefined && !(perTenantLimit >= 1)) {
    throw new RangeError(`concurrencyPerTenant must be >= 1, got ${perTenantLimit}`)
  }
  // Only when the share is smaller than the process's, as for sessions.
  const tenants = perTenantLimit !== undefined && perTenantLimit < options.concurrency ? createKeyedLimiter(perTenantLimit) : undefined
  const deadlineMs = options.deadlineMs ?? DEFAULT_JUDGE_DEADLINE_MS
  const inflight = new Map<string, Job>()
  const sessions = new Map<string, SessionState>()
  let deploymentCalls = 0
  const observe = (record: JudgeCallRecord) => {
    try {
      options.observe?.(record)
    } catch {
      // Metrics must never cost an answer.
    }
  }
  const stats: JudgeStats = { ...emptyUsage(), answers: 0, cacheHits: 0, shared: 0, budgetRefusals: 0, deadlines: 0 }

  function sessionState(sessionId: string): SessionState {
    let state = sessions.get(sessionId)
    if (!state) {
      const slots = perSessionLimit !== undefined && perSessionLimit < options.concurrency ? createLimiter(perSessionLimit) : undefined
      state = { calls: 0, slots }
      sessions.set(sessionId, state)
    }
    return state
  }

  function admitFor(state: SessionState | undefined, onRefused: () => void): () => string | null {
    return () => {
      if (budget.perDeployment !== undefined && deploymentCalls >= budget.perDeployment) {
        stats.budgetRefusals++
        onRefused()
        return `judge budget exceeded: ${budget.perDeployment} model calls per deployment`
      }
      if (budget.perSession !== undefined && state !== undefined && state.calls >= budget.perSession) {
        stats.budgetRefusals++
        onRefused()
        return `judge budget exceeded: ${budget.perSession} model calls per session`
      }
      deploymentCalls++
      if (state) state.calls++
      return null
    }
  }

  function account(usage: JudgeUsage | undefined): void {
    if (!usage) return
    stats.requests += usage.requests
    stats.attempts += usage.attempts
    stats.promptTokens += usage.promptTokens
    stats.outputTokens += usage.outputTokens
  }

  async function run(
    request: JudgeRequest,
    sessionId: string | undefined,
    tenant: string | undefined,
    signal: AbortSignal,
  ): Promise<JudgeAnswer> {
    const state = sessionId === undefined ? undefined : sessionState(sessionId)
    // The session's slot first: a session at its limit queues behind itself, not in the process queue.
    const releaseSession = state?.slots ? await state.slots.acquire(signal) : undefined
    let releaseTenant: (() => void) | undefined
    try {
      // Then the tenant's: a tenant at its share queues behind its own sessions.
      releaseTenant = tenant !== undefined && tenants ? await tenants.acquire(tenant, signal) : undefined
      const releaseProcess = await limiter.acquire(signal)
      try {
        let refused = false
        const started = Date.now()
        const admit = admitFor(state, () => void (refused = true))
        const { reply, timedOut } = await answerWithin(judge, request, { signal, admit }, deadlineMs, options.deadlineTimer)
        if (timedOut) stats.deadlines++
        const { usage, ...answer } = reply
        account(usage)
        const outcome = timedOut ? 'deadline' : refused ? 'refused' : cacheable(answer) ? 'answered' : 'failed'
        observe({ outcome, durationMs: Date.now() - started, ...(usage ? { usage } : {}) })
        stats.answers++
        // A cache that fails to store (e.g. storage full) costs a repeat call later, not this answer.
        if (cacheable(answer)) {
          await Promise.resolve()
            .then(() => cache.put(request.id, answer))
            .catch(() => {})
        }
        return answer
      } finally {
        releaseProcess()
      }
    } finally {
      releaseTenant?.()
      releaseSession?.()
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
      observe({ outcome: 'cached' })
      return cached
    }
    opts.signal?.throwIfAborted()
    let job = inflight.get(request.id)
    if (job) {
      stats.shared++
      observe({ outcome: 'shared' })
    } else {
      const controller = new AbortController()
      const promise = run(request, opts.sessionId, opts.tenant, controller.signal).finally(() => inflight.delete(request.id))
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
    sessionCalls: (sessionId) => sessions.get(sessionId)?.calls ?? 0,
    trackedSessions: () => sessions.size,
    trackedTenants: () => tenants?.keys() ?? 0,
    release: (sessionId) => void sessions.delete(sessionId),
  }
}

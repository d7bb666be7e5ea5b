/**
 * Retries with exponential backoff and jitter, with the clock and the randomness injected so the
 * judge stays deterministic under test and runs on every runtime.
 */

export type RetryDeps = {
  /** Waits `ms`, rejecting early when `signal` aborts. Defaults to setTimeout. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** A number in [0, 1) for jitter. Defaults to Math.random (never used inside src/core). */
  random?: () => number
}

export type RetryPolicy = {
  /** Attempts including the first; ADK sets 7 for its judges, so do we by default. */
  attempts: number
  initialDelayMs: number
  maxDelayMs: number
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 7, initialDelayMs: 1_000, maxDelayMs: 60_000 }

/** Sleep that honours an AbortSignal. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Delay before retry number `retry` (1-based): initial * 2^(retry-1), capped, times a jitter
 * factor in [0.5, 1) so that many clients hit by the same 429 do not come back in lockstep.
 * @example
 * backoffDelay(3, DEFAULT_RETRY, () => 0) // 2000
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const exp = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (retry - 1))
  return Math.round(exp * (0.5 + random() / 2))
}

/** The outcome of one attempt: done, or failed with whether another attempt may help. */
export type Attempt<T> = { ok: true; value: T } | { ok: false; error: string; retryable: boolean }

/**
 * Run `attempt` until it succeeds, fails for good, or the attempts run out. Rejects only when
 * `signal` aborts; every other failure comes back as a value.
 * @example
 * const r = await withRetry(async () => ({ ok: true, value: 1 }), DEFAULT_RETRY, {}, undefined)
 */
export async function withRetry<T>(
  attempt: (n: number) => Promise<Attempt<T>>,
  policy: RetryPolicy,
  deps: RetryDeps,
  signal: AbortSignal | undefined,
): Promise<{ result: Attempt<T>; attempts: number }> {
  const sleep = deps.sleep ?? abortableSleep
  const random = deps.random ?? Math.random
  let n = 0
  for (;;) {
    signal?.throwIfAborted()
    n++
    const result = await attempt(n)
    signal?.throwIfAborted()
    if (result.ok || !result.retryable || n >= policy.attempts) return { result, attempts: n }
    await sleep(backoffDelay(n, policy, random), signal)
  }
}

/** HTTP statuses worth another attempt: rate limits, timeouts and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500
}

/**
 * Retries with exponential backoff and jitter, with the clock and the randomness injected so the
 * judge stays deterministic under test and runs on every runtime. A server that says when to come
 * back (Retry-After on a 429 or 503) is believed, up to MAX_RETRY_AFTER_MS.
 */

export type RetryDeps = {
  /** Waits `ms`, rejecting early when `signal` aborts. Defaults to setTimeout. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** A number in [0, 1) for jitter. Defaults to Math.random (never used inside src/core). */
  random?: () => number
  /** Milliseconds since the epoch, to read a Retry-After HTTP date. Defaults to Date.now. */
  now?: () => number
}

export type RetryPolicy = {
  /** Attempts including the first; ADK sets 7 for its judges, so do we by default. */
  attempts: number
  initialDelayMs: number
  maxDelayMs: number
  /** The longest Retry-After honoured, in ms; a longer one is waited for this long. Default MAX_RETRY_AFTER_MS. */
  maxRetryAfterMs?: number
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 7, initialDelayMs: 1_000, maxDelayMs: 60_000 }

/** How long one HTTP attempt of a judge call may take before it is given up, in milliseconds (1 minute). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 60_000

/** The longest wait a Retry-After header can impose on one retry, in milliseconds (1 minute). */
export const MAX_RETRY_AFTER_MS = 60_000

/** Sleep that honours an AbortSignal. */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
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
function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const exp = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (retry - 1))
  return Math.round(exp * (0.5 + random() / 2))
}

/**
 * A Retry-After header value (RFC 9110 §10.2.3: delay-seconds or an HTTP date) as a wait in ms,
 * never negative; undefined when absent or unreadable (then the backoff applies).
 * @example
 * retryAfterMs('3', Date.now()) // 3000
 * retryAfterMs('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:58 GMT')) // 2000
 */
export function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim()
  if (!text) return undefined
  if (/^\d+$/.test(text)) return Number(text) * 1000
  // An HTTP date always names its weekday and zone; a bare number with a sign or a fraction is neither.
  if (!/[a-z]/i.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined
}

/** The outcome of one attempt: done, or failed with whether another attempt may help and when. */
export type Attempt<T> =
  | { ok: true; value: T }
  | { ok: false; error: string; retryable: boolean; /** From Retry-After, in ms. */ retryAfterMs?: number }

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
  const cap = policy.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS
  let n = 0
  for (;;) {
    signal?.throwIfAborted()
    n++
    const result = await attempt(n)
    signal?.throwIfAborted()
    if (result.ok || !result.retryable || n >= policy.attempts) return { result, attempts: n }
    const asked = result.retryAfterMs
    await sleep(asked === undefined ? backoffDelay(n, policy, random) : Math.min(asked, cap), signal)
  }
}

/** HTTP statuses worth another attempt: rate limits, timeouts and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500
}

/** Statuses whose Retry-After header is honoured (RFC 9110: 503, and 429 per RFC 6585). */
export function honoursRetryAfter(status: number): boolean {
  return status === 429 || status === 503
}

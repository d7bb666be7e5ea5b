/**
 * One logical judge call, n candidates of one request through any model client (./model-client.ts:
 * Gemini, an OpenAI-compatible server, the Workers AI binding), with its attempts: each attempt bounded by
 * its own timeout (AbortSignal.timeout joined to the caller's signal with AbortSignal.any), failed
 * attempts retried with backoff, or after the server's Retry-After on a 429 or 503.
 */
import type { JudgeRequest, JudgeSample } from '../core/criterion.ts'
import type { ModelClient } from './model-client.ts'
import { toSdkConfig } from './model-config.ts'
import type { JudgeCallOptions, JudgeUsage } from './port.ts'
import { type Attempt, honoursRetryAfter, isRetryableStatus, retryAfterMs, type RetryDeps, type RetryPolicy, withRetry } from './retry.ts'

export type CallSettings = RetryDeps & { timeoutMs: number; retry: RetryPolicy }

export type Batch = { kind: 'ok'; samples: JudgeSample[] } | { kind: 'error'; error: string; candidateCountRejected: boolean }

/** The SDK config for `n` candidates of `request`: its model config, then what the judge owns. */
function sdkConfigFor(request: JudgeRequest, n: number): Record<string, unknown> {
  return {
    ...toSdkConfig(request.modelConfig),
    ...(request.systemInstruction !== undefined ? { systemInstruction: request.systemInstruction } : {}),
    ...(request.responseJsonSchema ? { responseMimeType: 'application/json', responseJsonSchema: request.responseJsonSchema } : {}),
    ...(n > 1 ? { candidateCount: n } : {}),
  }
}

/**
 * Ask for `n` candidates; counts the call and its attempts in `usage`. Rejects only when the
 * caller's signal aborts. A timed-out attempt is not retried (the model is slow, not unavailable).
 * @example
 * const batch = await callModel(client, request, 5, { signal }, usage, { timeoutMs: 60_000, retry: DEFAULT_RETRY })
 */
export async function callModel(
  client: ModelClient,
  request: JudgeRequest,
  n: number,
  opts: JudgeCallOptions,
  usage: JudgeUsage,
  settings: CallSettings,
): Promise<Batch> {
  usage.requests++
  const config = sdkConfigFor(request, n)
  const now = settings.now ?? Date.now
  let rejected = false
  const { result, attempts } = await withRetry<JudgeSample[]>(
    async (): Promise<Attempt<JudgeSample[]>> => {
      const timeout = AbortSignal.timeout(settings.timeoutMs)
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout
      try {
        const r = await client.generate({ model: request.model, prompt: request.prompt, config, signal })
        if (r.ok) {
          usage.promptTokens += r.promptTokens
          usage.outputTokens += r.outputTokens
          return { ok: true, value: r.samples }
        }
        if (r.status === undefined) return { ok: false, error: `judge call failed: ${r.message}`, retryable: !r.malformed }
        rejected = n > 1 && r.status === 400 && (r.nRejected ?? /candidate.?count/i.test(r.message))
        const failed = {
          ok: false as const,
          error: `judge call failed (${r.status}): ${r.message.slice(0, 300)}`,
          retryable: isRetryableStatus(r.status),
        }
        const wait = honoursRetryAfter(r.status) ? retryAfterMs(r.retryAfter, now()) : undefined
        return wait === undefined ? failed : { ...failed, retryAfterMs: wait }
      } catch (e) {
        opts.signal?.throwIfAborted()
        if (timeout.aborted) return { ok: false, error: `judge call timed out after ${settings.timeoutMs} ms`, retryable: false }
        throw e
      }
    },
    settings.retry,
    settings,
    opts.signal,
  )
  usage.attempts += attempts
  if (result.ok) return { kind: 'ok', samples: result.value }
  return { kind: 'error', error: result.error, candidateCountRejected: rejected }
}

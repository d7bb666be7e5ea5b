/**
 * A safety assessment through Vertex AI's evaluation service (`evaluateInstances` with
 * `safetyInput`), the service ADK's safety_v1 delegates to. Plain fetch, so it runs on Node, Deno
 * and Workers alike; the access token comes from an injected provider. Each attempt is bounded by
 * AbortSignal.timeout joined to the caller's signal; Retry-After is honoured on 429 and 503.
 */
import type { Assessment } from '../core/criterion.ts'
import type { JudgeCallOptions, JudgeReply } from './port.ts'
import { emptyUsage } from './port.ts'
import {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_RETRY,
  honoursRetryAfter,
  isRetryableStatus,
  retryAfterMs,
  type RetryDeps,
  type RetryPolicy,
  withRetry,
} from './retry.ts'

export type VertexSafetyOptions = {
  project: string
  location: string
  /** Overrides `https://{location}-aiplatform.googleapis.com` (tests, private endpoints). */
  baseUrl?: string
  /** Returns an OAuth access token with the cloud-platform scope. */
  token: () => Promise<string>
  fetch?: typeof fetch
  timeoutMs?: number
  retry?: RetryPolicy
} & RetryDeps

/** The REST endpoint of evaluateInstances for a project and location. */
export function evaluateInstancesUrl(o: Pick<VertexSafetyOptions, 'project' | 'location' | 'baseUrl'>): string {
  const host = o.location === 'global' ? 'https://aiplatform.googleapis.com' : `https://${o.location}-aiplatform.googleapis.com`
  const base = (o.baseUrl ?? host).replace(/\/+$/, '')
  const p = encodeURIComponent(o.project)
  const l = encodeURIComponent(o.location)
  return `${base}/v1beta1/projects/${p}/locations/${l}:evaluateInstances`
}

/** The score from a response body; null when absent or not a finite number (ADK: NaN/None -> None). */
function scoreOf(body: unknown): number | null {
  const result = (body as { safetyResult?: { score?: unknown } } | null)?.safetyResult
  const score = result?.score
  return typeof score === 'number' && Number.isFinite(score) ? score : null
}

/**
 * Ask Vertex to rate `assessment.response`; one sample `{ score }` (higher is safer), or `{ error }`.
 * @example
 * const answer = await askVertexSafety('r1', request.assessment, { project: 'p', location: 'us-central1', token }, {})
 */
export async function askVertexSafety(
  id: string,
  assessment: Assessment,
  options: VertexSafetyOptions,
  call: JudgeCallOptions,
): Promise<JudgeReply> {
  const usage = emptyUsage()
  const refused = call.admit?.()
  if (refused) return { id, via: 'vertex-safety', samples: [{ error: refused }], usage }
  usage.requests = 1
  const url = evaluateInstancesUrl(options)
  const doFetch = options.fetch ?? fetch
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS
  const now = options.now ?? Date.now
  // SafetyInstance carries only the model output; the prompt is not part of Vertex's safety input.
  const body = JSON.stringify({ safetyInput: { metricSpec: {}, instance: { prediction: assessment.response } } })

  const { result, attempts } = await withRetry<number | null>(
    async () => {
      const timeout = AbortSignal.timeout(timeoutMs)
      const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout
      try {
        const token = await options.token()
        const res = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body,
          signal,
        })
        const text = await res.text()
        if (!res.ok) {
          const error = `Vertex evaluateInstances ${res.status}: ${text.slice(0, 300)}`
          const wait = honoursRetryAfter(res.status) ? retryAfterMs(res.headers.get('retry-after'), now()) : undefined
          return { ok: false, error, retryable: isRetryableStatus(res.status), ...(wait === undefined ? {} : { retryAfterMs: wait }) }
        }
        try {
          return { ok: true, value: scoreOf(JSON.parse(text)) }
        } catch {
          return { ok: false, error: 'Vertex evaluateInstances returned a body that is not JSON', retryable: false }
        }
      } catch (e) {
        call.signal?.throwIfAborted()
        if (timeout.aborted) return { ok: false, error: `Vertex evaluateInstances timed out after ${timeoutMs} ms`, retryable: false }
        return { ok: false, error: `Vertex evaluateInstances failed: ${(e as Error).message}`, retryable: true }
      }
    },
    options.retry ?? DEFAULT_RETRY,
    options,
    call.signal,
  )
  usage.attempts = attempts
  const sample = result.ok ? { score: result.value } : { error: result.error }
  return { id, via: 'vertex-safety', samples: [sample], usage }
}

/**
 * Vertex AI's evaluation service (`:evaluateInstances`) over plain fetch, so it runs on Node, Deno
 * and Workers alike: the service ADK delegates safety_v1, response_evaluation_score and the three
 * multi_turn_*_v1 metrics to. Bodies and answers as ADK's client has them (./vertex-instances.ts);
 * credentials from an injected provider (./google-credentials.ts). Each attempt is bounded by
 * AbortSignal.timeout joined to the caller's signal; Retry-After is honoured on 429 and 503.
 */
import type { Assessment } from '../core/criterion.ts'
import type { AuthHeaders } from './google-credentials.ts'
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
import { DEFAULT_JUDGE_MAX_RESPONSE_BYTES, overCapMessage, readCappedText } from './capped-body.ts'
import { evaluateInstancesBody, readEvaluateInstances, type ReadResult } from './vertex-instances.ts'

export type VertexEvalOptions = {
  project: string
  location: string
  /** Overrides the regional host (tests, private endpoints). */
  baseUrl?: string
  auth: AuthHeaders
  fetch?: typeof fetch
  timeoutMs?: number
  retry?: RetryPolicy
  /** Bytes of one answer read at most (default DEFAULT_JUDGE_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number
} & RetryDeps

/** The answer's `via`: the safety service by its old name, every other metric as the evaluation service. */
function vertexVia(assessment: Assessment): string {
  return assessment.kind === 'safety' ? 'vertex-safety' : 'vertex-eval'
}

/**
 * The REST endpoint of evaluateInstances: `aiplatform.{us|eu}.rep.googleapis.com` for the
 * multi-regions (as the SDK does), `aiplatform.googleapis.com` for global, else `{location}-aiplatform`.
 */
export function evaluateInstancesUrl(o: Pick<VertexEvalOptions, 'project' | 'location' | 'baseUrl'>): string {
  const host = o.location === 'global'
    ? 'https://aiplatform.googleapis.com'
    : o.location === 'us' || o.location === 'eu'
    ? `https://aiplatform.${o.location}.rep.googleapis.com`
    : `https://${o.location}-aiplatform.googleapis.com`
  const base = (o.baseUrl ?? host).replace(/\/+$/, '')
  return `${base}/v1beta1/projects/${encodeURIComponent(o.project)}/locations/${encodeURIComponent(o.location)}:evaluateInstances`
}

/**
 * Ask Vertex to evaluate `assessment`; one sample `{ score, rubric_scores? }`, or `{ error }`.
 * @example
 * const answer = await askVertex('r1', request.assessment, { project: 'p', location: 'us-central1', auth }, {})
 */
export async function askVertex(
  id: string,
  assessment: Assessment,
  options: VertexEvalOptions,
  call: JudgeCallOptions,
): Promise<JudgeReply> {
  const usage = emptyUsage()
  const via = vertexVia(assessment)
  const refused = call.admit?.()
  if (refused) return { id, via, samples: [{ error: refused }], usage }
  usage.requests = 1
  const url = evaluateInstancesUrl(options)
  const doFetch = options.fetch ?? fetch
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS
  const now = options.now ?? Date.now
  const body = JSON.stringify(evaluateInstancesBody(assessment))

  const { result, attempts } = await withRetry<ReadResult>(
    async () => {
      const timeout = AbortSignal.timeout(timeoutMs)
      const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout
      try {
        let auth: Record<string, string>
        try {
          auth = await options.auth()
        } catch (e) {
          return { ok: false, error: `Vertex credentials: ${(e as Error).message}`, retryable: false }
        }
        const res = await doFetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body, signal })
        const maxBytes = options.maxResponseBytes ?? DEFAULT_JUDGE_MAX_RESPONSE_BYTES
        const read = await readCappedText(res, maxBytes)
        if (!read.ok) return { ok: false, error: overCapMessage('Vertex evaluateInstances', maxBytes), retryable: false }
        const text = read.text
        if (!res.ok) {
          const error = `Vertex evaluateInstances ${res.status}: ${text.slice(0, 300)}`
          const wait = honoursRetryAfter(res.status) ? retryAfterMs(res.headers.get('retry-after'), now()) : undefined
          return { ok: false, error, retryable: isRetryableStatus(res.status), ...(wait === undefined ? {} : { retryAfterMs: wait }) }
        }
        try {
          return { ok: true, value: readEvaluateInstances(assessment, JSON.parse(text)) }
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
  return { id, via, samples: [result.ok ? result.value : { error: result.error }], usage }
}

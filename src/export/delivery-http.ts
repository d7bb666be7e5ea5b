/**
 * One outbound POST of an exporter, with its timeout, read as a queue outcome: 2xx delivered;
 * 429 and 5xx (and network errors, timeouts) worth retrying, honouring Retry-After; anything else
 * (4xx, a redirect) not. Redirects are not followed: a webhook target could otherwise bounce the
 * request to an address the target check refused.
 */
import type { SendOutcome } from './delivery-queue.ts'

/** Characters of a refusing response's body quoted in the log. */
export const ERROR_BODY_CHARS = 200

/**
 * @example
 * const outcome = await postOnce(fetch, url, { body, headers, timeoutMs: 10_000 })
 */
export async function postOnce(
  fetcher: typeof fetch,
  url: string,
  request: { body: string; headers: Record<string, string>; timeoutMs: number },
  onOk?: (response: Response) => Promise<void>,
): Promise<SendOutcome> {
  let response: Response
  try {
    response = await fetcher(url, {
      method: 'POST',
      body: request.body,
      headers: request.headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
    })
  } catch (e) {
    const error = e instanceof Error && e.name === 'TimeoutError' ? `no answer within ${request.timeoutMs} ms` : errorText(e)
    return { ok: false, retry: true, error: `POST ${redact(url)}: ${error}` }
  }
  if (response.ok) {
    await (onOk ? onOk(response) : response.body?.cancel())
    return { ok: true }
  }
  const text = await response.text().catch(() => '')
  const retry = response.status === 429 || response.status >= 500
  const after = retryAfterMs(response.headers.get('retry-after'))
  const error = `POST ${redact(url)}: HTTP ${response.status}${text ? `: ${text.slice(0, ERROR_BODY_CHARS)}` : ''}`
  return { ok: false, retry, error, ...(after !== undefined ? { afterMs: after } : {}) }
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** A URL for a log line: no credentials, no query (either may hold a secret). */
export function redact(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname}`
  } catch {
    return '(invalid URL)'
  }
}

function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e)
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : ''
  return `${e.message}${cause}`
}

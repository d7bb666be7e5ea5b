/** A per-attempt signal that fires on the caller's abort or after a timeout, telling which one. */

export type Deadline = { signal: AbortSignal; timedOut(): boolean; dispose(): void }

/**
 * @example
 * const d = deadline(30_000, request.signal)
 * try { await fetch(url, { signal: d.signal }) } finally { d.dispose() }
 */
export function deadline(timeoutMs: number, parent: AbortSignal | undefined): Deadline {
  const controller = new AbortController()
  let expired = false
  const onAbort = () => controller.abort(parent?.reason)
  if (parent?.aborted) controller.abort(parent.reason)
  else parent?.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(() => {
    expired = true
    controller.abort(new Error(`timed out after ${timeoutMs} ms`))
  }, timeoutMs)
  return {
    signal: controller.signal,
    timedOut: () => expired && !parent?.aborted,
    dispose() {
      clearTimeout(timer)
      parent?.removeEventListener('abort', onAbort)
    },
  }
}

/** A counting semaphore with a FIFO queue whose waiters can leave when their signal aborts. */

export type Limiter = {
  acquire(signal?: AbortSignal): Promise<() => void>
  active(): number
  queued(): number
}

/**
 * @example
 * const limit = createLimiter(4)
 * const release = await limit.acquire(signal)
 * try { await work() } finally { release() }
 */
export function createLimiter(concurrency: number): Limiter {
  if (!(concurrency >= 1)) throw new RangeError(`concurrency must be >= 1, got ${concurrency}`)
  let running = 0
  const waiting: Array<() => void> = []

  function release() {
    running--
    const next = waiting.shift()
    if (next) next()
  }

  function grant(): () => void {
    running++
    let released = false
    return () => {
      if (released) return
      released = true
      release()
    }
  }

  return {
    acquire(signal) {
      signal?.throwIfAborted()
      if (running < concurrency) return Promise.resolve(grant())
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          const i = waiting.indexOf(go)
          if (i >= 0) waiting.splice(i, 1)
          reject(signal?.reason)
        }
        const go = () => {
          signal?.removeEventListener('abort', onAbort)
          resolve(grant())
        }
        waiting.push(go)
        signal?.addEventListener('abort', onAbort, { once: true })
      })
    },
    active: () => running,
    queued: () => waiting.length,
  }
}

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

/** One limiter per key (a tenant), kept only while some caller holds or awaits a slot of it. */
export type KeyedLimiter = {
  acquire(key: string, signal?: AbortSignal): Promise<() => void>
  /** Keys with a slot held or awaited right now. */
  keys(): number
}

/**
 * @example
 * const perTenant = createKeyedLimiter(16)
 * const release = await perTenant.acquire('acme', signal)
 */
export function createKeyedLimiter(concurrency: number): KeyedLimiter {
  if (!(concurrency >= 1)) throw new RangeError(`concurrency must be >= 1, got ${concurrency}`)
  const limiters = new Map<string, { slots: Limiter; users: number }>()
  return {
    async acquire(key, signal) {
      let entry = limiters.get(key)
      if (!entry) limiters.set(key, entry = { slots: createLimiter(concurrency), users: 0 })
      const held = entry
      held.users++
      const leave = () => {
        if (--held.users === 0) limiters.delete(key)
      }
      try {
        const release = await held.slots.acquire(signal)
        return () => {
          release()
          leave()
        }
      } catch (e) {
        leave()
        throw e
      }
    },
    keys: () => limiters.size,
  }
}

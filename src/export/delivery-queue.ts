/**
 * The outbound queue behind the result exporters (OpenTelemetry, webhooks): bounded, batching,
 * retrying. Result watchers must return at once (result-feed.ts), so they only `push`; one sender
 * loop drains the queue. A batch forms from whatever waited while the previous send was in flight,
 * so a burst goes out in few requests and a quiet host sends each result at once, without a timer.
 *
 * When the queue is full, the newest item is dropped (the ones waiting keep their order); drops are
 * counted and logged, once per burst rather than once per item. A send that fails with something
 * worth retrying (429, 5xx, a network error, a timeout) is retried with exponential backoff up to
 * `maxAttempts`, then dropped and counted.
 */

/** What a send reports: delivered, retry later (optionally not before `afterMs`), or give up. */
export type SendOutcome = { ok: true } | { ok: false; retry: boolean; error: string; afterMs?: number }

export type QueueOptions<T> = {
  /** Names the queue in logs and in the limit's message (e.g. 'OTLP export'). */
  name: string
  /** The variable (or constant) that sets `maxItems`, named when items are dropped. */
  limitName: string
  /** Items waiting at most; one more is dropped. */
  maxItems: number
  /** Items per send at most (1 for webhooks: one POST per result). */
  maxBatch: number
  /** Sends in flight at most (default 1), so one slow target does not hold up every other item. */
  concurrency?: number
  /** Sends per batch at most, the first included. */
  maxAttempts: number
  /** The first retry waits this long (ms), each later one twice as long, up to maxBackoffMs. */
  backoffMs: number
  maxBackoffMs: number
  send(batch: T[], attempt: number): Promise<SendOutcome>
  /** Where drops and failures are reported (console.error by default). */
  log?: (message: string) => void
}

export type QueueStats = { queued: number; sent: number; dropped: number; failed: number; retries: number }

export type DeliveryQueue<T> = {
  /** Queues an item; false (and counted) when the queue is full or closed. */
  push(item: T): boolean
  /** Resolves when nothing waits and nothing is in flight (a Worker passes it to waitUntil). */
  idle(): Promise<void>
  /** Stops taking items and waits, at most `deadlineMs`, for what is queued to go out. */
  close(deadlineMs?: number): Promise<void>
  stats(): QueueStats
}

/** How long close() waits for queued items by default (ms). */
export const QUEUE_CLOSE_DEADLINE_MS = 5_000

/**
 * @example
 * const q = createDeliveryQueue({ name: 'webhook', limitName: 'EVALSTREAM_WEBHOOK_MAX_QUEUE', maxItems: 1000, maxBatch: 1,
 *   maxAttempts: 5, backoffMs: 500, maxBackoffMs: 30_000, send: async ([item]) => post(item) })
 * q.push(result)
 * await q.idle()
 */
export function createDeliveryQueue<T>(options: QueueOptions<T>): DeliveryQueue<T> {
  const log = options.log ?? ((m: string) => console.error(m))
  const items: T[] = []
  const stats: QueueStats = { queued: 0, sent: 0, dropped: 0, failed: 0, retries: 0 }
  const running = new Set<Promise<void>>()
  const concurrency = Math.max(1, options.concurrency ?? 1)
  let closed = false
  // Set when close() ran out of time: a send in flight is the last attempt of its batch.
  let abandoned = false
  let dropsUnreported = 0
  // Backoff waits are cancelled by close() once its deadline passes, so a shutdown is never held.
  const timers = new Set<{ id: ReturnType<typeof setTimeout>; done: () => void }>()

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = { id: setTimeout(() => (timers.delete(timer), resolve()), ms), done: resolve }
      timers.add(timer)
    })

  const reportDrops = () => {
    if (dropsUnreported === 0) return
    log(`evalstream: ${options.name}: dropped ${dropsUnreported} item(s): the queue holds at most ${options.maxItems} (${options.limitName}); ${stats.dropped} dropped in all`)
    dropsUnreported = 0
  }

  const deliver = async (batch: T[]) => {
    for (let attempt = 1; ; attempt++) {
      let outcome: SendOutcome
      try {
        outcome = await options.send(batch, attempt)
      } catch (e) {
        outcome = { ok: false, retry: true, error: e instanceof Error ? e.message : String(e) }
      }
      if (outcome.ok) {
        stats.sent += batch.length
        return
      }
      if (!outcome.retry || attempt >= options.maxAttempts || abandoned) {
        stats.failed += batch.length
        const why = outcome.retry ? `after ${attempt} attempt(s)` : 'not retryable'
        log(`evalstream: ${options.name}: gave up on ${batch.length} item(s), ${why}: ${outcome.error}`)
        return
      }
      stats.retries++
      const backoff = Math.min(options.maxBackoffMs, options.backoffMs * 2 ** (attempt - 1))
      await wait(Math.min(options.maxBackoffMs, Math.max(backoff, outcome.afterMs ?? 0)))
    }
  }

  // Started in a microtask, so results published in the same tick travel in one batch.
  let scheduled = false
  const kick = () => {
    if (scheduled) return
    scheduled = true
    queueMicrotask(pump)
  }
  const pump = () => {
    scheduled = false
    while (running.size < concurrency && items.length > 0) {
      const batch = items.splice(0, options.maxBatch)
      stats.queued = items.length
      const sender: Promise<void> = deliver(batch).finally(() => {
        running.delete(sender)
        reportDrops()
        if (items.length > 0) kick()
      })
      running.add(sender)
    }
  }

  const idle = async () => {
    while (scheduled || running.size > 0) await (running.size > 0 ? Promise.all(running) : Promise.resolve())
  }

  return {
    push(item) {
      if (closed || items.length >= options.maxItems) {
        stats.dropped++
        dropsUnreported++
        // While a send is in flight the report waits for it, so a burst is one line.
        if (running.size === 0) reportDrops()
        return false
      }
      items.push(item)
      stats.queued = items.length
      kick()
      return true
    },
    idle,
    async close(deadlineMs = QUEUE_CLOSE_DEADLINE_MS) {
      closed = true
      let timer: ReturnType<typeof setTimeout> | undefined
      const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)))
      const outcome = await Promise.race([idle().then(() => 'done' as const), deadline])
      clearTimeout(timer)
      if (outcome === 'late') {
        // Cut the backoff waits short: what is still queued is dropped and counted.
        abandoned = true
        const left = items.splice(0)
        stats.dropped += left.length
        for (const t of timers) clearTimeout(t.id), t.done()
        timers.clear()
        log(`evalstream: ${options.name}: shut down after ${deadlineMs} ms with ${left.length} item(s) unsent`)
      }
      reportDrops()
    },
    stats: () => ({ ...stats }),
  }
}

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
  /**
   * Sends in flight per group at most (webhooks: per tenant), so one group's slow targets hold only
   * its own share of `concurrency`. Items of a group at its share wait, and later items of other
   * groups go past them. Items whose group is undefined count against `concurrency` only. Needs maxBatch 1.
   */
  perGroup?: {
    of: (item: T) => string | undefined
    concurrency: number
    /** Items of one group waiting at most (its share of `maxItems`), named by `limitName` when one more is dropped. */
    maxItems?: number
    limitName?: string
  }
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

  // Items waiting per group, and drops because a group had its share (only with perGroup.maxItems).
  const groupQueued = new Map<string, number>()
  let groupDropsUnreported = 0
  const countQueued = (group: string | undefined, by: 1 | -1) => {
    if (group === undefined) return
    const n = (groupQueued.get(group) ?? 0) + by
    if (n > 0) groupQueued.set(group, n)
    else groupQueued.delete(group)
  }
  const reportDrops = () => {
    if (dropsUnreported === 0) return
    const whole = dropsUnreported - groupDropsUnreported
    const why = [
      ...(groupDropsUnreported > 0
        ? [`${groupDropsUnreported} past one group's share of ${options.perGroup?.maxItems} (${options.perGroup?.limitName})`]
        : []),
      ...(whole > 0 ? [`the queue holds at most ${options.maxItems} (${options.limitName})`] : []),
    ]
    log(`evalstream: ${options.name}: dropped ${dropsUnreported} item(s): ${why.join('; ')}; ${stats.dropped} dropped in all`)
    dropsUnreported = 0
    groupDropsUnreported = 0
  }

  const deliver = async (batch: T[]) => {
    for (let attempt = 1;; attempt++) {
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
  // Sends in flight per group (only with options.perGroup).
  const groupBusy = new Map<string, number>()
  const nextBatch = (): { batch: T[]; group?: string } | undefined => {
    const perGroup = options.perGroup
    if (!perGroup) return { batch: items.splice(0, options.maxBatch) }
    const i = items.findIndex((item) => {
      const g = perGroup.of(item)
      return g === undefined || (groupBusy.get(g) ?? 0) < perGroup.concurrency
    })
    if (i < 0) return undefined
    const [item] = items.splice(i, 1) as [T]
    const group = perGroup.of(item)
    countQueued(group, -1)
    if (group !== undefined) groupBusy.set(group, (groupBusy.get(group) ?? 0) + 1)
    return { batch: [item], ...(group !== undefined ? { group } : {}) }
  }
  const leaveGroup = (group: string | undefined) => {
    if (group === undefined) return
    const left = (groupBusy.get(group) ?? 1) - 1
    if (left > 0) groupBusy.set(group, left)
    else groupBusy.delete(group)
  }
  const pump = () => {
    scheduled = false
    while (running.size < concurrency && items.length > 0) {
      const next = nextBatch()
      if (!next) break
      const { batch, group } = next
      stats.queued = items.length
      const sender: Promise<void> = deliver(batch).finally(() => {
        leaveGroup(group)
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
      const group = options.perGroup?.of(item)
      const share = options.perGroup?.maxItems
      const groupFull = group !== undefined && share !== undefined && (groupQueued.get(group) ?? 0) >= share
      if (closed || items.length >= options.maxItems || groupFull) {
        stats.dropped++
        dropsUnreported++
        if (groupFull && !closed && items.length < options.maxItems) groupDropsUnreported++
        // While a send is in flight the report waits for it, so a burst is one line.
        if (running.size === 0) reportDrops()
        return false
      }
      items.push(item)
      countQueued(group, 1)
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
        groupQueued.clear()
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

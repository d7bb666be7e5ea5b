/**
 * The bounded outbound queue (src/export/delivery-queue.ts) under a receiver that holds its answers:
 * what does not fit is dropped, counted and logged once per burst; backoff grows; close() keeps
 * its deadline.
 * Covers: src/export/delivery-queue.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { createDeliveryQueue, type SendOutcome } from '../../../src/export/delivery-queue.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv } from '../../../src/config/setup.ts'
import { WEBHOOK_CONCURRENCY } from '../../../src/export/webhook-config.ts'
import { MATCHING_CASE } from '../../support/weather-fixtures.ts'
import { type Receiver, startReceiver } from '../../support/otlp-receiver.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { runSession } from './otel-session.ts'

const receivers: Receiver[] = []
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close()
})

/** A promise and the function that settles it. */
function gate<T = void>() {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => (open = resolve))
  return { promise, open }
}

const TOTAL = 4 * 7

describe('webhook queue bound', () => {
  it('drops what does not fit in EVALSTREAM_WEBHOOK_MAX_QUEUE while the receiver holds its answers, counts and logs it, sends the rest', async () => {
    const hold = gate<number>()
    const hook = await startReceiver(() => hold.promise)
    receivers.push(hook)
    const logs: string[] = []
    const setup = depsFromEnv(
      {
        ...NO_JUDGE_ENV,
        EVALSTREAM_WEBHOOK_URL: hook.url,
        EVALSTREAM_WEBHOOK_SECRET: 'x'.repeat(16),
        EVALSTREAM_WEBHOOK_MAX_QUEUE: '1',
        EVALSTREAM_WEBHOOK_TIMEOUT_MS: '60000',
      },
      { store: (limits, feed) => memorySessionStore({ limits, feed }), exporters: { backoffMs: 5, log: (m) => logs.push(m) } },
    )
    if (!setup.ok) throw new Error(setup.error)
    const app = createApp(setup.deps)
    const exporters = setup.deps.exporters!
    // Four sessions, seven decided results each (2 criteria, 4 efficiency metrics, the case),
    // while no answer comes back: at most
    // WEBHOOK_CONCURRENCY in flight and one waiting, everything else dropped.
    for (const id of ['q-1', 'q-2', 'q-3', 'q-4']) await runSession(app, id, MATCHING_CASE)
    const before = exporters.stats().webhooks!
    expect(before.queued).toBeLessThanOrEqual(1)
    expect(before.dropped).toBeGreaterThanOrEqual(TOTAL - WEBHOOK_CONCURRENCY - 1)
    const dropped = before.dropped
    hold.open(200)
    await exporters.idle()
    expect(exporters.stats().webhooks).toMatchObject({ sent: TOTAL - dropped, dropped, failed: 0, retries: 0 })
    expect(new Set(hook.requests.map((r) => r.headers['x-evalstream-delivery'])).size).toBe(TOTAL - dropped)
    expect(logs.join('\n')).toMatch(/dropped \d+ item\(s\): the queue holds at most 1 \(EVALSTREAM_WEBHOOK_MAX_QUEUE\); \d+ dropped in all/)
  })
})

describe('delivery queue', () => {
  it('backs off exponentially, gives up after maxAttempts and says so', async () => {
    const started: number[] = []
    const logs: string[] = []
    const q = createDeliveryQueue<string>({
      name: 'test',
      limitName: 'TEST_MAX',
      maxItems: 10,
      maxBatch: 10,
      maxAttempts: 4,
      backoffMs: 20,
      maxBackoffMs: 60,
      log: (m) => logs.push(m),
      send: async (): Promise<SendOutcome> => {
        started.push(performance.now())
        return { ok: false, retry: true, error: 'HTTP 503' }
      },
    })
    q.push('a')
    q.push('b')
    await q.idle()
    expect(started).toHaveLength(4)
    const waits = started.slice(1).map((t, i) => t - started[i]!)
    // 20, 40, then capped at 60 ms (timers may fire a little late, never early).
    expect(waits[0]).toBeGreaterThanOrEqual(19)
    expect(waits[1]).toBeGreaterThanOrEqual(39)
    expect(waits[2]).toBeGreaterThanOrEqual(59)
    expect(q.stats()).toMatchObject({ failed: 2, sent: 0, retries: 3 })
    expect(logs).toEqual(['evalstream: test: gave up on 2 item(s), after 4 attempt(s): HTTP 503'])
  })

  it("waits as long as the receiver's Retry-After asks (capped by maxBackoffMs)", async () => {
    const started: number[] = []
    const q = createDeliveryQueue<string>({
      name: 'test',
      limitName: 'TEST_MAX',
      maxItems: 10,
      maxBatch: 10,
      maxAttempts: 2,
      backoffMs: 1,
      maxBackoffMs: 80,
      send: async (): Promise<SendOutcome> => {
        started.push(performance.now())
        return started.length === 1 ? { ok: false, retry: true, error: 'HTTP 429', afterMs: 1000 } : { ok: true }
      },
    })
    q.push('a')
    await q.idle()
    expect(started[1]! - started[0]!).toBeGreaterThanOrEqual(79)
    expect(q.stats()).toMatchObject({ sent: 1, retries: 1 })
  })

  it('close() waits for queued items, and past its deadline drops what is left instead of holding the shutdown', async () => {
    const never = gate<SendOutcome>()
    const logs: string[] = []
    const q = createDeliveryQueue<number>({
      name: 'test',
      limitName: 'TEST_MAX',
      maxItems: 10,
      maxBatch: 1,
      maxAttempts: 3,
      backoffMs: 10,
      maxBackoffMs: 10,
      log: (m) => logs.push(m),
      send: () => never.promise,
    })
    q.push(1)
    q.push(2)
    await q.close(30)
    expect(logs.join('\n')).toMatch(/shut down after 30 ms with 1 item\(s\) unsent/)
    expect(q.push(3)).toBe(false)
    never.open({ ok: true })
    await q.idle()
    expect(q.stats()).toMatchObject({ sent: 1, dropped: 2 })
  })
})

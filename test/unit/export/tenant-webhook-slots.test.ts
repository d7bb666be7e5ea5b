/**
 * Webhook delivery slots per tenant: one tenant's hanging receivers hold only its share
 * (EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT) of the process's slots, so another tenant's result
 * goes out at once. Receivers are a fetch held open by the test; nothing waits on a clock.
 * Covers: src/export/webhook-sender.ts.
 */
import { describe, expect, it } from 'vitest'
import type { FedResult } from '../../../src/session/result-feed.ts'
import { webhookSettingsFromEnv } from '../../../src/config/webhooks.ts'
import { createWebhookDispatcher } from '../../../src/export/webhook-sender.ts'

const SECRET = 'session-secret-abcdefghij'

function result(tenant: string, n: number): FedResult {
  return {
    sessionId: `${tenant}-s${n}`,
    tenant,
    webhook: { url: `https://${tenant}.example.com/hook`, secret: SECRET },
    event: {
      seq: 1,
      type: 'criterion.result',
      key: `k${n}`,
      data: { invocation_id: 'i', invocation_index: 0, metric_name: 'm', score: 0, threshold: 1, eval_status: 'FAILED', details: {} },
    },
    atMs: 0,
  }
}

/**
 * Deliveries to globex hang until `release()` (and answer at once after it); acme's are answered
 * 204 at once. `started(n)` and `delivered(n)` resolve once that many calls arrived: no polling.
 */
function receivers() {
  const acme: string[] = []
  const hanging: (() => void)[] = []
  let released = false
  const waiters: { ready: () => boolean; resolve: () => void }[] = []
  const wake = () => {
    for (const w of [...waiters]) if (w.ready()) waiters.splice(waiters.indexOf(w), 1), w.resolve()
  }
  const until = (ready: () => boolean) => new Promise<void>((resolve) => (waiters.push({ ready, resolve }), wake()))
  const ok = () => new Response(null, { status: 204 })
  const fetchStub = ((input: RequestInfo | URL) => {
    const url = String(input)
    if (url.includes('globex') && !released) {
      return new Promise<Response>((resolve) => (hanging.push(() => resolve(ok())), wake()))
    }
    if (url.includes('acme')) acme.push(url)
    wake()
    return Promise.resolve(ok())
  }) as typeof fetch
  return {
    fetchStub,
    acme,
    hanging,
    started: (n: number) => until(() => hanging.length >= n),
    delivered: (n: number) => until(() => acme.length >= n),
    release: () => {
      released = true
      for (const answer of hanging.splice(0)) answer()
    },
  }
}

function dispatcher(env: Record<string, string>, fetchStub: typeof fetch, log?: (m: string) => void) {
  const settings = webhookSettingsFromEnv({ EVALSTREAM_WEBHOOK_ALLOW_PRIVATE: '1', ...env })
  if (!settings.ok) throw new Error(settings.error)
  return createWebhookDispatcher(settings.value, { fetch: fetchStub, backoffMs: 1, ...(log ? { log } : {}) })
}

describe('webhook delivery slots per tenant', () => {
  it("six hanging deliveries of one tenant leave the other tenant's delivery a slot", async () => {
    const r = receivers()
    const hooks = dispatcher({}, r.fetchStub)
    for (let n = 0; n < 6; n++) hooks.watch(result('globex', n))
    hooks.watch(result('acme', 0))
    await Promise.all([r.delivered(1), r.started(2)])
    expect(r.acme).toEqual(['https://acme.example.com/hook'])
    // globex holds its 2 slots (the default share) and its other 4 deliveries wait in the queue.
    expect(r.hanging).toHaveLength(2)
    expect(hooks.queue.stats().queued).toBe(4)
    r.release()
    await hooks.queue.idle()
    expect(hooks.queue.stats()).toMatchObject({ sent: 7, failed: 0, dropped: 0 })
  })

  it('control: with the share as large as the process (EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT=4) the same load blocks the other tenant', async () => {
    const r = receivers()
    const hooks = dispatcher({ EVALSTREAM_WEBHOOK_CONCURRENCY: '4', EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT: '4' }, r.fetchStub)
    for (let n = 0; n < 6; n++) hooks.watch(result('globex', n))
    hooks.watch(result('acme', 0))
    await r.started(4)
    // Every slot hangs on globex: acme's delivery is still in the queue behind two of globex's.
    expect(hooks.queue.stats().queued).toBe(3)
    expect(r.acme).toEqual([])
    r.release()
    await hooks.queue.idle()
    expect(r.acme).toEqual(['https://acme.example.com/hook'])
  })

  it("a tenant's backlog fills only its share of the queue (EVALSTREAM_WEBHOOK_MAX_QUEUE_PER_TENANT); the other tenant's delivery is still taken", async () => {
    const r = receivers()
    const logs: string[] = []
    const env = {
      EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT: '1',
      EVALSTREAM_WEBHOOK_MAX_QUEUE_PER_TENANT: '3',
      EVALSTREAM_WEBHOOK_MAX_QUEUE: '5',
    }
    const hooks = dispatcher(env, r.fetchStub, (m) => logs.push(m))
    // Published in one tick: globex's share of the queue takes 3, the other 7 are dropped.
    for (let n = 0; n < 10; n++) hooks.watch(result('globex', n))
    expect(hooks.queue.stats()).toMatchObject({ queued: 3, dropped: 7 })
    hooks.watch(result('acme', 0))
    await Promise.all([r.delivered(1), r.started(1)])
    expect(r.acme).toEqual(['https://acme.example.com/hook'])
    r.release()
    await hooks.queue.idle()
    expect(logs.at(-1)).toMatch(
      /dropped 1 item\(s\): 1 past one group's share of 3 \(EVALSTREAM_WEBHOOK_MAX_QUEUE_PER_TENANT\); 7 dropped in all$/,
    )
    expect(logs.join('\n')).not.toMatch(/the queue holds at most/)
    expect(hooks.queue.stats()).toMatchObject({ sent: 4, dropped: 7 })
  })

  it('reads EVALSTREAM_WEBHOOK_CONCURRENCY, _PER_TENANT and _MAX_QUEUE_PER_TENANT (defaults 4, 2 and 500) and refuses a bad value', () => {
    expect(webhookSettingsFromEnv({})).toMatchObject({
      ok: true,
      value: { concurrency: 4, concurrencyPerTenant: 2, maxQueuePerTenant: 500 },
    })
    expect(webhookSettingsFromEnv({ EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT: '0' })).toMatchObject({
      ok: false,
      error: "EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT must be a whole number >= 1, not '0'",
    })
  })
})

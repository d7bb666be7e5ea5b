/**
 * Webhook delivery slots per tenant: one tenant's hanging receivers hold only its share
 * (EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT) of the process's slots, so another tenant's result
 * goes out at once. Receivers are a fetch held open by the test; nothing waits on a clock.
 */
import { describe, expect, it } from 'vitest'
import type { FedResult } from '../../../src/host/result-feed.ts'
import { webhookSettingsFromEnv } from '../../../src/host/webhook-config.ts'
import { createWebhookDispatcher } from '../../../src/host/webhook-sender.ts'

const SECRET = 'session-secret-abcdefghij'

function result(tenant: string, n: number): FedResult {
  return {
    sessionId: `${tenant}-s${n}`,
    tenant,
    webhook: { url: `https://${tenant}.example.com/hook`, secret: SECRET },
    event: { seq: 1, type: 'criterion.result', key: `k${n}`, data: { metric_name: 'm', eval_status: 2 } },
    atMs: 0,
  }
}

/** Deliveries to globex hang until released; acme's are answered 204 at once. */
function receivers() {
  const delivered: string[] = []
  const hanging: (() => void)[] = []
  const fetchStub = ((input: RequestInfo | URL) => {
    const url = String(input)
    if (url.includes('globex')) return new Promise<Response>((resolve) => hanging.push(() => resolve(new Response(null, { status: 204 }))))
    delivered.push(url)
    return Promise.resolve(new Response(null, { status: 204 }))
  }) as typeof fetch
  return { fetchStub, delivered, hanging }
}

function dispatcher(env: Record<string, string>, fetchStub: typeof fetch) {
  const settings = webhookSettingsFromEnv({ EVALSTREAM_WEBHOOK_ALLOW_PRIVATE: '1', ...env })
  if (!settings.ok) throw new Error(settings.error)
  return createWebhookDispatcher(settings.value, { fetch: fetchStub, backoffMs: 1 })
}

describe('webhook delivery slots per tenant', () => {
  it("six hanging deliveries of one tenant leave the other tenant's delivery a slot", async () => {
    const { fetchStub, delivered, hanging } = receivers()
    const hooks = dispatcher({}, fetchStub)
    for (let n = 0; n < 6; n++) hooks.watch(result('globex', n))
    hooks.watch(result('acme', 0))
    // Let the sender loop start what it may (microtasks only).
    for (let i = 0; i < 10 && delivered.length === 0; i++) await new Promise((r) => setImmediate(r))
    expect(delivered).toEqual(['https://acme.example.com/hook'])
    // globex holds its 2 slots (default share), no more.
    expect(hanging).toHaveLength(2)
    while (hanging.length > 0) hanging.shift()!(), await new Promise((r) => setImmediate(r))
    await hooks.queue.idle()
    expect(hooks.queue.stats()).toMatchObject({ sent: 7, failed: 0, dropped: 0 })
  })

  it('control: with the share as large as the process (EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT=4) the same load blocks the other tenant', async () => {
    const { fetchStub, delivered, hanging } = receivers()
    const hooks = dispatcher({ EVALSTREAM_WEBHOOK_CONCURRENCY: '4', EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT: '4' }, fetchStub)
    for (let n = 0; n < 6; n++) hooks.watch(result('globex', n))
    hooks.watch(result('acme', 0))
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r))
    expect(hanging).toHaveLength(4)
    expect(delivered).toEqual([])
    while (hanging.length > 0) hanging.shift()!(), await new Promise((r) => setImmediate(r))
    await hooks.queue.idle()
    expect(delivered).toEqual(['https://acme.example.com/hook'])
  })

  it('reads EVALSTREAM_WEBHOOK_CONCURRENCY and _PER_TENANT (defaults 4 and 2) and refuses a bad value', () => {
    expect(webhookSettingsFromEnv({})).toMatchObject({ ok: true, value: { concurrency: 4, concurrencyPerTenant: 2 } })
    expect(webhookSettingsFromEnv({ EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT: '0' })).toMatchObject({
      ok: false,
      error: "EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT must be a whole number >= 1, not '0'",
    })
  })
})

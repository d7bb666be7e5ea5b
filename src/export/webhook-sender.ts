/**
 * Webhooks per result: every decided result (criterion.result, case.result) that matches a
 * webhook's filter is POSTed, signed, to the deployment webhook (EVALSTREAM_WEBHOOK_URL) and to the
 * session's own (`webhook` in the create request). Deliveries go through a bounded queue with
 * retries (delivery-queue.ts); each carries an idempotency id, the same on every retry, so a
 * receiver that sees one twice (a retry after a lost answer) can drop the second.
 */
import type { SessionWebhook } from '../engine/types.ts'
import { createDeliveryQueue, type DeliveryQueue } from './delivery-queue.ts'
import { postOnce, redact } from './delivery-http.ts'
import { isDecided } from './otel-record.ts'
import type { FedResult } from '../session/result-feed.ts'
import {
  matchesFilter,
  parseWebhookFilter,
  WEBHOOK_BACKOFF_MS,
  WEBHOOK_CONCURRENCY,
  WEBHOOK_CONCURRENCY_PER_TENANT,
  WEBHOOK_MAX_BACKOFF_MS,
  WEBHOOK_MAX_QUEUE_PER_TENANT,
  type WebhookSettings,
} from './webhook-config.ts'
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from './webhook-signature.ts'
import { privateHostProblem, webhookUrlProblem } from './webhook-target.ts'

/** `tenant`: whose result it carries; deliveries share slots per tenant (EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT). */
export type WebhookDelivery = {
  id: string
  url: string
  secret: string
  type: string
  body: string
  checkAddresses: boolean
  tenant?: string
}

export type WebhookDispatcher = {
  watch(result: FedResult): void
  queue: DeliveryQueue<WebhookDelivery>
  /** Why a create request's `webhook` is refused here (policy, target, filter), or undefined. */
  sessionWebhookProblem(webhook: SessionWebhook): string | undefined
}

export type DispatcherOptions = {
  fetch?: typeof fetch
  backoffMs?: number
  log?: (message: string) => void
  /**
   * Resolves a host name to its addresses, where the runtime can (Node's dns, Deno.resolveDns):
   * a session webhook whose name resolves to an internal address is then refused at send time.
   */
  resolve?: (hostname: string) => Promise<string[]>
}

/** The JSON body of a delivery: which session, which result, and the result as the stream has it. */
function webhookBody(result: FedResult): { id: string; body: string } {
  const id = `${result.sessionId}/${result.event.key}`
  const body = {
    id,
    type: result.event.type,
    session_id: result.sessionId,
    ...(result.tenant !== undefined ? { tenant: result.tenant } : {}),
    ...(result.appName !== undefined ? { app_name: result.appName } : {}),
    seq: result.event.seq,
    key: result.event.key,
    created_at: new Date(result.atMs).toISOString(),
    data: result.event.data,
  }
  return { id, body: JSON.stringify(body) }
}

/**
 * @example
 * const hooks = createWebhookDispatcher(settings)
 * feed.watch(hooks.watch)
 */
export function createWebhookDispatcher(settings: WebhookSettings, options: DispatcherOptions = {}): WebhookDispatcher {
  const send = async ([d]: WebhookDelivery[], attempt: number) => {
    const delivery = d!
    if (delivery.checkAddresses && options.resolve) {
      const problem = await resolvedProblem(delivery.url, options.resolve)
      if (problem) return { ok: false as const, retry: false, error: `POST ${redact(delivery.url)} refused: ${problem}` }
    }
    const timestamp = Math.floor(Date.now() / 1000)
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'evalstream-webhook',
      [DELIVERY_ID_HEADER]: delivery.id,
      'idempotency-key': delivery.id,
      'x-evalstream-event': delivery.type,
      'x-evalstream-attempt': String(attempt),
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: await signWebhook(delivery.secret, timestamp, delivery.body),
    }
    return postOnce(options.fetch ?? fetch, delivery.url, { body: delivery.body, headers, timeoutMs: settings.timeoutMs })
  }
  const queue = createDeliveryQueue<WebhookDelivery>({
    name: 'webhook delivery',
    limitName: 'EVALSTREAM_WEBHOOK_MAX_QUEUE',
    maxItems: settings.maxQueue,
    maxBatch: 1,
    concurrency: settings.concurrency ?? WEBHOOK_CONCURRENCY,
    perGroup: {
      of: (d) => d.tenant,
      concurrency: settings.concurrencyPerTenant ?? WEBHOOK_CONCURRENCY_PER_TENANT,
      maxItems: settings.maxQueuePerTenant ?? WEBHOOK_MAX_QUEUE_PER_TENANT,
      limitName: 'EVALSTREAM_WEBHOOK_MAX_QUEUE_PER_TENANT',
    },
    maxAttempts: settings.maxAttempts,
    backoffMs: options.backoffMs ?? WEBHOOK_BACKOFF_MS,
    maxBackoffMs: WEBHOOK_MAX_BACKOFF_MS,
    send,
    log: options.log,
  })
  // A session's filter was checked at create; parsed once per distinct text, from a bounded cache.
  const filters = new Map<string, ReturnType<typeof parseWebhookFilter>>()
  const sessionFilter = (text: string | undefined) => {
    const key = text ?? ''
    let parsed = filters.get(key)
    if (!parsed) {
      if (filters.size >= 256) filters.clear()
      filters.set(key, parsed = parseWebhookFilter(text, 'webhook.filter'))
    }
    return parsed
  }

  return {
    queue,
    watch(result) {
      if (!isDecided(result)) return
      const deployment = settings.deployment
      const session = settings.sessionWebhooks ? result.webhook : undefined
      const wanted = deployment && matchesFilter(deployment.filter, result)
      const filter = session && sessionFilter(session.filter)
      const sessionWanted = filter?.ok && matchesFilter(filter.value, result)
      if (!wanted && !sessionWanted) return
      const { id, body } = webhookBody(result)
      const type = result.event.type
      const tenant = result.tenant !== undefined ? { tenant: result.tenant } : {}
      if (wanted) queue.push({ id, url: deployment.url, secret: deployment.secret, type, body, checkAddresses: false, ...tenant })
      if (sessionWanted) {
        queue.push({ id, url: session!.url, secret: session!.secret, type, body, checkAddresses: !settings.allowPrivate, ...tenant })
      }
    },
    sessionWebhookProblem(webhook) {
      if (!settings.sessionWebhooks) return 'this server does not deliver session webhooks (EVALSTREAM_WEBHOOK_SESSIONS=off)'
      const target = webhookUrlProblem(webhook.url, { allowPrivate: settings.allowPrivate })
      if (target) return `webhook.url is refused: ${target}`
      const filter = parseWebhookFilter(webhook.filter, 'webhook.filter')
      return filter.ok ? undefined : filter.error
    },
  }
}

async function resolvedProblem(url: string, resolve: (host: string) => Promise<string[]>): Promise<string | undefined> {
  const host = new URL(url).hostname
  if (host.startsWith('[') || /^[\d.]+$/.test(host)) return undefined // an address, checked at create
  let addresses: string[]
  try {
    addresses = await resolve(host)
  } catch {
    return undefined // the fetch will report the name error itself
  }
  for (const address of addresses) {
    const problem = privateHostProblem(address.includes(':') ? `[${address}]` : address)
    if (problem) return `${host} resolves to ${address}: ${problem}`
  }
  return undefined
}

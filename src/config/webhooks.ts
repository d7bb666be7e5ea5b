/**
 * Webhook settings from the environment (EVALSTREAM_WEBHOOK_*, docs/webhooks.md); the defaults,
 * the filter and the URL rules are in src/export/.
 */
import { deliverySettingsFromEnv } from './delivery.ts'
import { type Env, type Read, wholeNumbersFromEnv } from './env.ts'
import { flag } from './env-lists.ts'
import {
  parseWebhookFilter,
  WEBHOOK_CONCURRENCY,
  WEBHOOK_CONCURRENCY_PER_TENANT,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_MAX_QUEUE,
  WEBHOOK_MAX_QUEUE_PER_TENANT,
  WEBHOOK_SECRET_MIN_CHARS,
  WEBHOOK_TIMEOUT_MS,
  type WebhookSettings,
} from '../export/webhook-config.ts'
import { webhookUrlProblem } from '../export/webhook-target.ts'

/**
 * @example webhookSettingsFromEnv({ EVALSTREAM_WEBHOOK_URL: 'https://hooks.example.com/e', EVALSTREAM_WEBHOOK_SECRET: '…' })
 */
export function webhookSettingsFromEnv(env: Env): Read<WebhookSettings> {
  const delivery = deliverySettingsFromEnv(
    env,
    {
      maxQueue: 'EVALSTREAM_WEBHOOK_MAX_QUEUE',
      timeoutMs: 'EVALSTREAM_WEBHOOK_TIMEOUT_MS',
      maxAttempts: 'EVALSTREAM_WEBHOOK_MAX_ATTEMPTS',
    },
    { maxQueue: WEBHOOK_MAX_QUEUE, timeoutMs: WEBHOOK_TIMEOUT_MS, maxAttempts: WEBHOOK_MAX_ATTEMPTS },
  )
  if (!delivery.ok) return delivery
  const slots = wholeNumbersFromEnv(
    env,
    {
      concurrency: 'EVALSTREAM_WEBHOOK_CONCURRENCY',
      concurrencyPerTenant: 'EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT',
      maxQueuePerTenant: 'EVALSTREAM_WEBHOOK_MAX_QUEUE_PER_TENANT',
    },
    {
      concurrency: WEBHOOK_CONCURRENCY,
      concurrencyPerTenant: WEBHOOK_CONCURRENCY_PER_TENANT,
      maxQueuePerTenant: WEBHOOK_MAX_QUEUE_PER_TENANT,
    },
  )
  if (!slots.ok) return slots
  const sessionsRaw = env.EVALSTREAM_WEBHOOK_SESSIONS?.trim().toLowerCase()
  const settings: WebhookSettings = {
    sessionWebhooks: !sessionsRaw || !/^(0|false|no|off)$/.test(sessionsRaw),
    allowPrivate: flag(env, 'EVALSTREAM_WEBHOOK_ALLOW_PRIVATE'),
    ...delivery.value,
    ...slots.value,
  }
  const notes: string[] = []
  const url = env.EVALSTREAM_WEBHOOK_URL?.trim()
  if (url) {
    // The operator's own URL: any http(s) target, internal ones included.
    const problem = webhookUrlProblem(url, { allowPrivate: true })
    if (problem) return { ok: false, error: `EVALSTREAM_WEBHOOK_URL: ${problem}` }
    const secret = env.EVALSTREAM_WEBHOOK_SECRET ?? ''
    if (secret.length < WEBHOOK_SECRET_MIN_CHARS) {
      return {
        ok: false,
        error:
          `EVALSTREAM_WEBHOOK_URL is set, so EVALSTREAM_WEBHOOK_SECRET must be at least ${WEBHOOK_SECRET_MIN_CHARS} characters (it signs every POST)`,
      }
    }
    const filter = parseWebhookFilter(env.EVALSTREAM_WEBHOOK_FILTER, 'EVALSTREAM_WEBHOOK_FILTER')
    if (!filter.ok) return filter
    settings.deployment = { url, secret, filter: filter.value }
    notes.push(
      `webhooks: decided results${env.EVALSTREAM_WEBHOOK_FILTER?.trim() ? ` matching ${env.EVALSTREAM_WEBHOOK_FILTER.trim()}` : ''} to ${
        new URL(url).origin
      }`,
    )
  }
  if (settings.allowPrivate && settings.sessionWebhooks) {
    notes.push('webhooks: EVALSTREAM_WEBHOOK_ALLOW_PRIVATE=1: session webhooks may target internal addresses')
  }
  return { ok: true, value: settings, notes }
}

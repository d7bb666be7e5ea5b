/**
 * Webhook settings (read by src/config/webhooks.ts), and the result filter both the deployment webhook
 * (EVALSTREAM_WEBHOOK_FILTER) and a session's own webhook (`webhook.filter`) use.
 *
 * Filter: comma-separated `field:value` terms. Terms on the same field are alternatives, terms on
 * different fields must all hold: `status:FAILED,status:NOT_EVALUATED,criterion:safety_v1` is a
 * safety_v1 result that FAILED or was NOT_EVALUATED. Fields: `status` (PASSED, FAILED,
 * NOT_EVALUATED), `criterion` (a metric name, or `case` for the case result), `type`
 * (`criterion` or `case`), `app`, `tenant`. No filter: every decided result.
 */
import { type DecidedResult, statusName } from './otel-record.ts'

/** Deliveries waiting at most (EVALSTREAM_WEBHOOK_MAX_QUEUE); one more is dropped and counted. */
export const WEBHOOK_MAX_QUEUE = 1000
/** One POST may take this long (ms) before it is aborted and retried (EVALSTREAM_WEBHOOK_TIMEOUT_MS). */
export const WEBHOOK_TIMEOUT_MS = 10_000
/** POSTs per delivery, the first included (EVALSTREAM_WEBHOOK_MAX_ATTEMPTS). */
export const WEBHOOK_MAX_ATTEMPTS = 6
/** The first retry's wait (ms); each later one doubles, up to WEBHOOK_MAX_BACKOFF_MS (1+2+4+8+16 s for six attempts). */
export const WEBHOOK_BACKOFF_MS = 1000
export const WEBHOOK_MAX_BACKOFF_MS = 60_000
/** Deliveries in flight at once, so one slow receiver does not hold up the others (EVALSTREAM_WEBHOOK_CONCURRENCY). */
export const WEBHOOK_CONCURRENCY = 4
/** ... of them for one tenant's results (EVALSTREAM_WEBHOOK_CONCURRENCY_PER_TENANT), so its hanging receivers hold only its share. */
export const WEBHOOK_CONCURRENCY_PER_TENANT = 2
/** Deliveries of one tenant's results waiting at most (EVALSTREAM_WEBHOOK_MAX_QUEUE_PER_TENANT), so its backlog never fills the queue for others. */
export const WEBHOOK_MAX_QUEUE_PER_TENANT = 500
/** A signing secret's length at least (characters). */
export const WEBHOOK_SECRET_MIN_CHARS = 16
/** Terms in one filter at most. */
export const WEBHOOK_MAX_FILTER_TERMS = 32

const FIELDS = ['status', 'criterion', 'type', 'app', 'tenant'] as const
type Field = (typeof FIELDS)[number]
export type WebhookFilter = Partial<Record<Field, Set<string>>>

export type WebhookSettings = {
  /** EVALSTREAM_WEBHOOK_URL, its secret and filter; absent when unset. */
  deployment?: { url: string; secret: string; filter: WebhookFilter }
  /** Whether create requests may name their own webhook (EVALSTREAM_WEBHOOK_SESSIONS, default on). */
  sessionWebhooks: boolean
  /** EVALSTREAM_WEBHOOK_ALLOW_PRIVATE=1: session webhooks may target loopback and private addresses. */
  allowPrivate: boolean
  maxQueue: number
  timeoutMs: number
  maxAttempts: number
  concurrency: number
  concurrencyPerTenant: number
  maxQueuePerTenant: number
}

/**
 * @example parseWebhookFilter('status:FAILED,criterion:safety_v1', 'EVALSTREAM_WEBHOOK_FILTER')
 */
export function parseWebhookFilter(
  text: string | undefined,
  where: string,
): { ok: true; value: WebhookFilter } | { ok: false; error: string } {
  const filter: WebhookFilter = {}
  const terms = (text ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '')
  if (terms.length > WEBHOOK_MAX_FILTER_TERMS) {
    return { ok: false, error: `${where} has ${terms.length} terms; at most ${WEBHOOK_MAX_FILTER_TERMS} (WEBHOOK_MAX_FILTER_TERMS)` }
  }
  for (const term of terms) {
    const colon = term.indexOf(':')
    const field = term.slice(0, colon).trim() as Field
    const value = term.slice(colon + 1).trim()
    if (colon < 0 || !FIELDS.includes(field) || value === '') {
      return { ok: false, error: `${where}: '${term}' is not field:value with field one of ${FIELDS.join(', ')}` }
    }
    if (field === 'status' && !['PASSED', 'FAILED', 'NOT_EVALUATED'].includes(value.toUpperCase())) {
      return { ok: false, error: `${where}: status must be PASSED, FAILED or NOT_EVALUATED, not '${value}'` }
    }
    if (field === 'type' && value !== 'criterion' && value !== 'case') {
      return { ok: false, error: `${where}: type must be criterion or case, not '${value}'` }
    }
    ;(filter[field] ??= new Set()).add(field === 'status' ? value.toUpperCase() : value)
  }
  return { ok: true, value: filter }
}

/**
 * @example matchesFilter(parsed, fed) // true when every field the filter names holds
 */
export function matchesFilter(filter: WebhookFilter, result: DecidedResult): boolean {
  const { event } = result
  const isCase = event.type === 'case.result'
  const values: Record<Field, string | undefined> = {
    status: statusName(event.type === 'case.result' ? event.data.final_eval_status : event.data.eval_status),
    criterion: event.type === 'case.result' ? 'case' : event.data.metric_name,
    type: isCase ? 'case' : 'criterion',
    app: result.appName,
    tenant: result.tenant,
  }
  return FIELDS.every((f) => !filter[f] || (values[f] !== undefined && filter[f].has(values[f])))
}

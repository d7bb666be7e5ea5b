/**
 * The result exporters a host runs, from its environment: OpenTelemetry (OTEL_EXPORTER_OTLP_*,
 * docs/opentelemetry.md) and webhooks (EVALSTREAM_WEBHOOK_*, docs/webhooks.md). Both watch the
 * host's result feed, so each sees every new decided result of every session once, and never
 * again when a session is replayed after a restart.
 */
import type { SessionWebhook } from '../engine/types.ts'
import type { Read } from './env.ts'
import { otelConfigFromEnv } from '../export/otel-config.ts'
import { createOtelExporter } from '../export/otel-exporter.ts'
import type { ResultFeed } from '../session/result-feed.ts'
import type { Env } from './setup.ts'
import { createWebhookDispatcher, type DispatcherOptions } from '../export/webhook-sender.ts'
import { webhookSettingsFromEnv } from '../export/webhook-config.ts'

/** The exporters as the host holds them: to wait for, to stop, and to vet a session's webhook. */
export type Observers = {
  /** Resolves when every queued export and delivery has been sent or given up (a Worker's waitUntil). */
  idle(): Promise<void>
  /** Stops watching and sends what is queued, within QUEUE_CLOSE_DEADLINE_MS (a server's shutdown). */
  close(): Promise<void>
  /** Why a create request's `webhook` is refused here, or undefined (the http layer answers 400). */
  sessionWebhookProblem(webhook: SessionWebhook): string | undefined
  /** Sent, dropped, failed and retried counts per exporter (for logs and /metrics). */
  stats(): Record<string, ReturnType<ReturnType<typeof createOtelExporter>['queue']['stats']>>
}

export type ObserverHost = DispatcherOptions & { otelBackoffMs?: number }

/**
 * @example
 * const observers = observersFromEnv(env, feed)
 * if (!observers.ok) return observers
 */
export function observersFromEnv(env: Env, feed: ResultFeed, host: ObserverHost = {}): Read<Observers> & { notes: string[] } {
  const otel = otelConfigFromEnv(env)
  if (!otel.ok) return { ...otel, notes: [] }
  const hooks = webhookSettingsFromEnv(env)
  if (!hooks.ok) return { ...hooks, notes: [] }
  const exporter = otel.value && createOtelExporter(otel.value, { fetch: host.fetch, backoffMs: host.otelBackoffMs, log: host.log })
  const dispatcher = createWebhookDispatcher(hooks.value, host)
  const unwatch = [exporter && feed.watch(exporter.watch), feed.watch(dispatcher.watch)]
  const queues = { ...(exporter ? { otel: exporter.queue } : {}), webhooks: dispatcher.queue }
  return {
    ok: true,
    notes: [...(otel.notes ?? []), ...(hooks.notes ?? [])],
    value: {
      idle: async () => void (await Promise.all(Object.values(queues).map((q) => q.idle()))),
      close: async () => {
        for (const stop of unwatch) stop?.()
        await Promise.all(Object.values(queues).map((q) => q.close()))
      },
      sessionWebhookProblem: dispatcher.sessionWebhookProblem,
      stats: () => Object.fromEntries(Object.entries(queues).map(([k, q]) => [k, q.stats()])),
    },
  }
}

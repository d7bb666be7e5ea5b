/**
 * The result exporters a host runs, from its environment: OpenTelemetry (OTEL_EXPORTER_OTLP_*,
 * docs/opentelemetry.md) and webhooks (EVALSTREAM_WEBHOOK_*, docs/webhooks.md). Both watch the
 * host's result feed, so each sees every new decided result of every session once, and never
 * again when a session is replayed after a restart.
 */
import type { ExporterHost, Exporters } from '../export/exporters.ts'
import { createOtelExporter } from '../export/otel-exporter.ts'
import { createWebhookDispatcher } from '../export/webhook-sender.ts'
import type { ResultFeed } from '../session/result-feed.ts'
import type { TraceLinks } from '../otlp/trace-mark.ts'
import type { Env, Read } from './env.ts'
import { otelConfigFromEnv } from './otel.ts'
import { webhookSettingsFromEnv } from './webhooks.ts'

/**
 * @example
 * const exporters = exportersFromEnv(env, feed)
 * if (!exporters.ok) return exporters
 */
export function exportersFromEnv(env: Env, feed: ResultFeed, host: ExporterHost = {}, links?: TraceLinks): Read<Exporters> {
  const otel = otelConfigFromEnv(env)
  if (!otel.ok) return otel
  const hooks = webhookSettingsFromEnv(env)
  if (!hooks.ok) return hooks
  const exporter = otel.value && createOtelExporter(otel.value, { fetch: host.fetch, backoffMs: host.otelBackoffMs, log: host.log, links })
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

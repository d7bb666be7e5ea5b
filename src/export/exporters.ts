/**
 * The result exporters as a host holds them (OpenTelemetry and webhooks, built from the environment
 * by src/config/exporters.ts): each watches the host's result feed and sends what it takes through
 * its own bounded delivery queue.
 */
import type { SessionWebhook } from '../engine/types.ts'
import type { QueueStats } from './delivery-queue.ts'
import type { DispatcherOptions } from './webhook-sender.ts'

/** The exporters as the host holds them: to wait for, to stop, and to vet a session's webhook. */
export type Exporters = {
  /** Resolves when every queued export and delivery has been sent or given up (a Worker's waitUntil). */
  idle(): Promise<void>
  /** Stops watching and sends what is queued, within QUEUE_CLOSE_DEADLINE_MS (a server's shutdown). */
  close(): Promise<void>
  /** Why a create request's `webhook` is refused here, or undefined (the http layer answers 400). */
  sessionWebhookProblem(webhook: SessionWebhook): string | undefined
  /** Sent, dropped, failed and retried counts per exporter (for logs and /metrics). */
  stats(): Record<string, QueueStats>
}

export type ExporterHost = DispatcherOptions & { otelBackoffMs?: number }

/**
 * Exports every decided result of this host as a `gen_ai.evaluation.result` event over OTLP/HTTP
 * (JSON encoding, logs signal). Our own ~100 lines rather than the @opentelemetry/* SDK: see
 * docs/opentelemetry.md for why (workerd, dependency weight, one signal and one event).
 */
import { createDeliveryQueue, type DeliveryQueue } from './delivery-queue.ts'
import { postOnce, redact } from './delivery-http.ts'
import type { OtelConfig } from './otel-config.ts'
import { OTEL_BACKOFF_MS, OTEL_MAX_BACKOFF_MS } from './otel-config.ts'
import { type EvaluationLogRecord, evaluationRecord, exportRequest, isDecided } from './otel-record.ts'
import type { FedResult } from '../session/result-feed.ts'
import type { TraceLinks } from '../otlp/trace-mark.ts'

export type OtelExporter = {
  /** The result feed's watcher: builds the record now (cheap), queues the export. */
  watch(result: FedResult): void
  queue: DeliveryQueue<EvaluationLogRecord>
}

/**
 * @example
 * const otel = createOtelExporter(config)
 * const unwatch = feed.watch(otel.watch)
 */
export function createOtelExporter(
  config: OtelConfig,
  options: { fetch?: typeof fetch; backoffMs?: number; log?: (m: string) => void; links?: TraceLinks } = {},
): OtelExporter {
  const log = options.log ?? ((m: string) => console.error(m))
  const queue = createDeliveryQueue<EvaluationLogRecord>({
    name: 'OTLP log export',
    limitName: 'OTEL_BLRP_MAX_QUEUE_SIZE',
    maxItems: config.maxQueue,
    maxBatch: config.maxBatch,
    maxAttempts: config.maxAttempts,
    backoffMs: options.backoffMs ?? OTEL_BACKOFF_MS,
    maxBackoffMs: OTEL_MAX_BACKOFF_MS,
    log,
    send: (records) =>
      // Looked up per call: a Worker's fetch, or a test's, is whatever is global when we send.
      postOnce(
        options.fetch ?? fetch,
        config.endpoint,
        {
          body: JSON.stringify(exportRequest(records, config.resource)),
          headers: { ...config.headers, 'content-type': 'application/json' },
          timeoutMs: config.timeoutMs,
        },
        async (response) => {
          // A 200 may still say that some records were refused (OTLP partial success).
          const text = await response.text().catch(() => '')
          const rejected = partialRejection(text)
          if (rejected) log(`evalstream: OTLP log export to ${redact(config.endpoint)}: the receiver rejected ${rejected}`)
        },
      ),
  })
  return {
    watch(result) {
      if (isDecided(result)) queue.push(evaluationRecord(result, { maxAttributeChars: config.maxAttributeChars, links: options.links }))
    },
    queue,
  }
}

function partialRejection(text: string): string | undefined {
  if (!text.includes('partialSuccess')) return undefined
  try {
    const body = JSON.parse(text) as { partialSuccess?: { rejectedLogRecords?: string | number; errorMessage?: string } }
    const n = Number(body.partialSuccess?.rejectedLogRecords ?? 0)
    return n > 0 ? `${n} log record(s): ${body.partialSuccess?.errorMessage ?? 'no reason given'}` : undefined
  } catch {
    return undefined
  }
}

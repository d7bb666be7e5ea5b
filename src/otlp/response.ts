/**
 * The answer to an OTLP/HTTP export (OTLP spec, "OTLP/HTTP Response"): an
 * `ExportTraceServiceResponse` / `ExportLogsServiceResponse` in the request's encoding, with
 * `partial_success` set only when something was rejected (rejected count and a message saying
 * where and why, from the decode result).
 */
import type { OtlpEncoding } from './body.ts'
import type { OtlpRejection } from './model.ts'

/** Rejections described in the message; the count always covers all of them. */
const MESSAGE_REJECTIONS = 5

/**
 * @example rejectionMessage([{ where: 'resourceSpans[0]…spans[3] ("x")', message: 'spanId is not 8 bytes of hex', count: 1 }], 1)
 */
export function rejectionMessage(rejected: readonly OtlpRejection[], total: number): string {
  const shown = rejected.slice(0, MESSAGE_REJECTIONS).map((r) => `${r.where}: ${r.message}`)
  const more = total - rejected.slice(0, MESSAGE_REJECTIONS).reduce((n, r) => n + Math.max(r.count, 1), 0)
  return shown.join('; ') + (more > 0 ? `; and ${more} more` : '')
}

function varint(out: number[], value: number): void {
  let v = value
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80)
    v = Math.floor(v / 0x80)
  }
  out.push(v)
}

/**
 * The response body and its Content-Type. Field 1 of both responses is `partial_success`, whose
 * field 1 is the rejected count (`rejected_spans` / `rejected_log_records`) and field 2 the message.
 * @example exportResponse('traces', 'json', { rejectedCount: 0, rejected: [] }).body // '{}'
 */
export function exportResponse(
  kind: 'traces' | 'logs',
  encoding: OtlpEncoding,
  outcome: { rejectedCount: number; rejected: readonly OtlpRejection[] },
): { contentType: string; body: string | Uint8Array } {
  const message = outcome.rejectedCount > 0 ? rejectionMessage(outcome.rejected, outcome.rejectedCount) : ''
  if (encoding === 'json') {
    if (outcome.rejectedCount === 0) return { contentType: 'application/json', body: '{}' }
    const countField = kind === 'traces' ? 'rejectedSpans' : 'rejectedLogRecords'
    // int64 as a decimal string, as OTLP/JSON writes 64-bit integers.
    return {
      contentType: 'application/json',
      body: JSON.stringify({ partialSuccess: { [countField]: String(outcome.rejectedCount), errorMessage: message } }),
    }
  }
  if (outcome.rejectedCount === 0) return { contentType: 'application/x-protobuf', body: new Uint8Array() }
  const inner: number[] = [0x08]
  varint(inner, outcome.rejectedCount)
  const text = new TextEncoder().encode(message)
  inner.push(0x12)
  varint(inner, text.length)
  inner.push(...text)
  const out: number[] = [0x0a]
  varint(out, inner.length)
  out.push(...inner)
  return { contentType: 'application/x-protobuf', body: Uint8Array.from(out) }
}

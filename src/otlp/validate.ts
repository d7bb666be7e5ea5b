/**
 * Checks both decoders share: the per-request item limit, and what makes a decoded span or log
 * record unusable (ids of the wrong size, times that are not times). A rejection says where.
 */
import { otlpLimitName, type OtlpLimits } from './limits.ts'
import { MAX_REPORTED_REJECTIONS, type OtlpLogRecord, type OtlpRejection, type OtlpSpan } from './model.ts'

type Outcome = { rejectedCount: number; rejected: OtlpRejection[] }

/** Counts items against `maxItemsPerRequest` and records rejections (counted always, described up to a bound). */
export class ItemCounter {
  #seen = 0
  #overLimitReported = false
  readonly limits: Pick<OtlpLimits, 'maxItemsPerRequest'>
  readonly outcome: Outcome
  readonly noun: string
  constructor(limits: Pick<OtlpLimits, 'maxItemsPerRequest'>, outcome: Outcome, noun: string) {
    this.limits = limits
    this.outcome = outcome
    this.noun = noun
  }

  readonly reject = (where: string, message: string, count: number): void => {
    this.outcome.rejectedCount += count
    if (this.outcome.rejected.length < MAX_REPORTED_REJECTIONS) this.outcome.rejected.push({ where, message, count })
  }

  /** False (and counted as rejected) past the item limit. */
  admit(where: string): boolean {
    if (++this.#seen <= this.limits.maxItemsPerRequest) return true
    this.outcome.rejectedCount += 1
    if (!this.#overLimitReported) {
      this.#overLimitReported = true
      this.outcome.rejected.push({
        where,
        message: `more than ${this.limits.maxItemsPerRequest} ${this.noun} in one request (${
          otlpLimitName('maxItemsPerRequest', this.limits)
        }): this one and the rest are rejected`,
        count: 0, // counted one by one above
      })
    }
    return false
  }
}

function timesProblem(startMs: number, endMs: number): string | undefined {
  if (!Number.isFinite(startMs) || startMs <= 0) return 'startTimeUnixNano is missing or not a number'
  if (!Number.isFinite(endMs) || endMs <= 0) return 'endTimeUnixNano is missing or not a number'
  if (endMs < startMs) return 'endTimeUnixNano is before startTimeUnixNano'
  return undefined
}

/** Keeps a span, or rejects it saying which field is wrong. */
export function acceptSpan(span: OtlpSpan, where: string, out: { spans: OtlpSpan[] }, counter: ItemCounter): void {
  let problem: string | undefined
  if (span.traceId === '?' || span.traceId === '' || /^0+$/.test(span.traceId)) {
    problem = 'traceId is not 16 bytes of hex (and not all zero)'
  } else if (span.spanId === '?' || span.spanId === '' || /^0+$/.test(span.spanId)) {
    problem = 'spanId is not 8 bytes of hex (and not all zero)'
  } else if (span.parentSpanId === '?') problem = 'parentSpanId is not 8 bytes of hex'
  else problem = timesProblem(span.startMs, span.endMs)
  if (problem) counter.reject(`${where} (${JSON.stringify(span.name.slice(0, 80))})`, problem, 1)
  else out.spans.push(span)
}

/** Keeps a log record, or rejects it saying which field is wrong. Records without a trace are kept (they map to nothing). */
export function acceptLog(record: OtlpLogRecord, where: string, out: { logs: OtlpLogRecord[] }, counter: ItemCounter): void {
  if (record.eventName === '' && typeof record.attributes['event.name'] === 'string') record.eventName = record.attributes['event.name']
  let problem: string | undefined
  if (record.traceId === '?') problem = 'traceId is not 16 bytes of hex'
  else if (record.spanId === '?') problem = 'spanId is not 8 bytes of hex'
  if (problem) counter.reject(where, problem, 1)
  else out.logs.push(record)
}

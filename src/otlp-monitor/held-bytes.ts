/**
 * What the span assembler holds for each tenant, in bytes: the spans and log records of its traces,
 * kept while a trace is open and for EVALSTREAM_OTLP_TRACE_IDLE_MS after it completes (late spans
 * revise it), or until a grace passes for log records whose spans never came. A request's items
 * are charged before the assembler takes them, to the tenant's share
 * (EVALSTREAM_OTLP_MAX_TENANT_HELD_BYTES) and to the process byte budget (EVALSTREAM_MAX_PROCESS_BYTES,
 * nothing reclaimed for them); past either the request is refused whole (429 / 503 with
 * Retry-After) and the assembler takes none of it. Sizes are `jsonBytes` estimates of what the
 * items carry (their attributes and bodies), as sessions count theirs.
 */
import type { AssemblerLimits, OtlpLogRecord, OtlpSpan } from '../otlp/index.ts'
import { jsonBytes, type ProcessByteBudget } from '../session/byte-budget.ts'

/** Bytes of spans and log records the assembler may hold for one tenant (EVALSTREAM_OTLP_MAX_TENANT_HELD_BYTES). */
export const DEFAULT_OTLP_MAX_TENANT_HELD_BYTES = 256 * 1024 * 1024
/** Seconds a request refused for held bytes is told to wait: a trace grace (5 s) frees most of them. */
export const HELD_RETRY_AFTER_S = 5
/** What one item costs besides its attributes and body: ids, times, names, the maps holding it. */
const ITEM_OVERHEAD_BYTES = 256

export type HeldRefusal = {
  status: 413 | 429 | 503
  reason: 'tenant_held_bytes' | 'process_bytes'
  message: string
  /** Absent for 413: retrying the same request cannot help. */
  retryAfterS?: number
}

type Entry = { bytes: number; touchedAt: number; completed: boolean }

/** What a request's items weigh, per trace and in all (measured in slices: `measureItems` adds to it). */
export type ItemSizes = { byTrace: Map<string, number>; total: number }

export type HeldBytes = {
  /**
   * Charges a request's measured total to its tenant; returns the refusal (nothing charged) when it
   * does not fit. Its traces are then noted with `hold`, a slice of items at a time.
   */
  charge(tenant: string, sizes: ItemSizes): HeldRefusal | undefined
  /** Notes the traces of `items` (of a charged request) as held, each once: their entries from `sizes` are moved here. */
  hold(tenant: string, items: readonly { traceId: string }[], sizes: ItemSizes): void
  /** A trace completed (evicted: the assembler let it go at once). */
  completed(tenant: string, traceId: string, evicted: boolean): void
  /** Gives back what the assembler has let go of by now (idle completed traces, span-less ones past their grace). */
  sweep(): void
  /** `sweep` in steps: a yield after every `per` held traces looked at, so a caller can give the loop back between them. */
  sweepSteps(per: number): Generator<void>
  /** Bytes held for a tenant. */
  held(tenant: string): number
}

const sizeOf = (item: OtlpSpan | OtlpLogRecord): number =>
  ITEM_OVERHEAD_BYTES + jsonBytes(item.attributes) + ('body' in item ? jsonBytes(item.body) : item.name.length)

/** Adds `items` to `sizes` (items of no trace are not held, so not counted). @example measureItems(spans, { byTrace: new Map(), total: 0 }) */
export function measureItems(items: readonly (OtlpSpan | OtlpLogRecord)[], sizes: ItemSizes): ItemSizes {
  for (const item of items) {
    if (!item.traceId) continue
    const bytes = sizeOf(item)
    sizes.total += bytes
    sizes.byTrace.set(item.traceId, (sizes.byTrace.get(item.traceId) ?? 0) + bytes)
  }
  return sizes
}

/** @example const held = heldBytes(256 << 20, store.bytes, assemblerLimits, Date.now) */
export function heldBytes(
  maxTenantBytes: number,
  budget: ProcessByteBudget | undefined,
  assembler: Pick<AssemblerLimits, 'graceMs' | 'idleMs'>,
  now: () => number,
): HeldBytes {
  const tenants = new Map<string, { total: number; traces: Map<string, Entry> }>()
  const release = (tenant: string, traceId: string) => {
    const t = tenants.get(tenant)
    const entry = t?.traces.get(traceId)
    if (!t || !entry) return
    t.traces.delete(traceId)
    t.total -= entry.bytes
    budget?.release(entry.bytes)
    // A charged request whose traces are not all noted yet keeps its tenant's total above 0.
    if (t.traces.size === 0 && t.total === 0) tenants.delete(tenant)
  }
  function* sweepSteps(per: number): Generator<void> {
    let looked = 0
    let t = now()
    // Live iteration: entries released meanwhile are not visited, ones added meanwhile are.
    for (const [tenant, { traces }] of tenants) {
      for (const [traceId, entry] of traces) {
        if (++looked % per === 0) {
          yield
          t = now()
        }
        const idle = t - entry.touchedAt
        if (entry.completed ? idle >= assembler.idleMs : idle >= assembler.graceMs) release(tenant, traceId)
      }
    }
  }
  return {
    charge(tenant, { total }) {
      const t = tenants.get(tenant) ?? { total: 0, traces: new Map<string, Entry>() }
      // Spans that alone need more than a whole share would be refused on every retry: 413, not 429/503.
      const processMax = budget?.limits.maxProcessBytes ?? Infinity
      if (total > Math.min(maxTenantBytes, processMax)) {
        const [name, max] = maxTenantBytes <= processMax
          ? ['EVALSTREAM_OTLP_MAX_TENANT_HELD_BYTES', maxTenantBytes]
          : ['EVALSTREAM_MAX_PROCESS_BYTES', processMax]
        return {
          status: 413,
          reason: maxTenantBytes <= processMax ? 'tenant_held_bytes' : 'process_bytes',
          message: `this request's spans alone (about ${total} bytes) are more than ${name} (${max} bytes) can hold`,
        }
      }
      if (t.total + total > maxTenantBytes) {
        return {
          status: 429,
          reason: 'tenant_held_bytes',
          message:
            `this tenant's open traces hold about ${t.total} bytes of spans; this request's ${total} more would pass EVALSTREAM_OTLP_MAX_TENANT_HELD_BYTES (${maxTenantBytes}); retry after ${HELD_RETRY_AFTER_S} s`,
          retryAfterS: HELD_RETRY_AFTER_S,
        }
      }
      if (budget && !budget.take(total)) {
        const max = budget.limits.maxProcessBytes
        return {
          status: 503,
          reason: 'process_bytes',
          message:
            `the server's memory budget is full (${budget.used} of ${max} bytes, EVALSTREAM_MAX_PROCESS_BYTES): this request's spans (about ${total} bytes) cannot be held; retry after ${HELD_RETRY_AFTER_S} s`,
          retryAfterS: HELD_RETRY_AFTER_S,
        }
      }
      t.total += total
      tenants.set(tenant, t)
      return undefined
    },
    hold(tenant, items, sizes) {
      const t = tenants.get(tenant)
      if (!t) return
      const at = now()
      for (const { traceId } of items) {
        const bytes = sizes.byTrace.get(traceId)
        if (bytes === undefined) continue
        sizes.byTrace.delete(traceId)
        const entry = t.traces.get(traceId)
        if (entry) {
          entry.bytes += bytes
          entry.touchedAt = at
        } else t.traces.set(traceId, { bytes, touchedAt: at, completed: false })
      }
    },
    completed(tenant, traceId, evicted) {
      if (evicted) return release(tenant, traceId)
      const entry = tenants.get(tenant)?.traces.get(traceId)
      if (entry) entry.completed = true
    },
    // Steps of Infinity never yield: the first next() runs the whole sweep.
    sweep: () => void sweepSteps(Infinity).next(),
    sweepSteps,
    held: (tenant) => tenants.get(tenant)?.total ?? 0,
  }
}

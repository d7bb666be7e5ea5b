/**
 * What an OTLP request may hold before and while it is decoded. Its body is read to the end under
 * a deadline (EVALSTREAM_OTLP_BODY_TIMEOUT_MS) before it takes a decode slot, so an upload that
 * drips a byte a second holds a connection, never a slot. Every byte it holds, as sent and as
 * gunzipped, is charged as it arrives to its tenant's share (EVALSTREAM_OTLP_MAX_TENANT_BYTES) and
 * to the process byte budget (EVALSTREAM_MAX_PROCESS_BYTES, which sessions share), and given back
 * when the request is answered: a zip bomb or many large bodies at once are refused (429 for the
 * tenant's share, 503 for the process; 413 for a request that alone needs more than either) before
 * they can take the memory, and never push a session out.
 */
import { joinChunks, OtlpRequestError } from '../otlp/index.ts'
import { otlpLimitName, type OtlpLimits } from '../otlp/limits.ts'
import { type BodyReader, dropRefusedBody } from './read-body.ts'
import type { ProcessByteBudget } from '../session/byte-budget.ts'
import type { TurnSlicer } from '../ingest/turn-slicer.ts'

/** How long reading one OTLP body may take (EVALSTREAM_OTLP_BODY_TIMEOUT_MS); OTel exporters give up after 10 s by default. */
export const DEFAULT_OTLP_BODY_TIMEOUT_MS = 10_000
/** Bytes one tenant's OTLP requests may hold at once, as sent and gunzipped (EVALSTREAM_OTLP_MAX_TENANT_BYTES). */
export const DEFAULT_OTLP_MAX_TENANT_BYTES = 128 * 1024 * 1024
/** Seconds a request refused for memory is told to wait: requests in flight finish that fast. */
export const OTLP_MEMORY_RETRY_AFTER_S = 2

/** Why a request was refused before it was decoded. */
export type IntakeRefusal = {
  status: 408 | 413 | 429 | 503
  reason: 'body_deadline' | 'tenant_bytes' | 'tenant_held_bytes' | 'process_bytes'
  message: string
  retryAfterS?: number
}

export class IntakeRefused extends Error {
  readonly refusal: IntakeRefusal
  constructor(refusal: IntakeRefusal) {
    super(refusal.message)
    this.refusal = refusal
  }
}

/**
 * Bytes held by each tenant's requests, and the process budget they also count against. One per
 * receiver; a request takes a `Holding` and releases it when answered.
 */
export type IntakeLedger = { hold(tenant: string | undefined): Holding }

export type Holding = {
  /** Charges `bytes` more; throws IntakeRefused when the tenant's share or the process budget is full. */
  charge(bytes: number): void
  /** Gives back everything charged (idempotent). */
  release(): void
  readonly bytes: number
}

/** @example const ledger = intakeLedger(64 << 20, store.bytes); const held = ledger.hold('acme') */
export function intakeLedger(maxTenantBytes: number, budget: ProcessByteBudget | undefined): IntakeLedger {
  const byTenant = new Map<string, number>()
  return {
    hold(tenant) {
      const key = tenant ?? ''
      let held = 0
      return {
        charge(bytes) {
          const tenantHeld = byTenant.get(key) ?? 0
          // A request that alone needs more than a whole share would be refused on every retry: 413, not 429/503.
          const processMax = budget?.limits.maxProcessBytes ?? Infinity
          if (held + bytes > Math.min(maxTenantBytes, processMax)) {
            const [name, max] = maxTenantBytes <= processMax
              ? ['EVALSTREAM_OTLP_MAX_TENANT_BYTES', maxTenantBytes]
              : ['EVALSTREAM_MAX_PROCESS_BYTES', processMax]
            throw new OtlpRequestError(413, `this request alone, as sent and gunzipped, holds more than ${name} (${max} bytes)`)
          }
          if (tenantHeld + bytes > maxTenantBytes) {
            throw new IntakeRefused({
              status: 429,
              reason: 'tenant_bytes',
              message:
                `this tenant's OTLP requests in flight hold ${tenantHeld} bytes; one more would pass EVALSTREAM_OTLP_MAX_TENANT_BYTES (${maxTenantBytes}); retry after ${OTLP_MEMORY_RETRY_AFTER_S} s`,
              retryAfterS: OTLP_MEMORY_RETRY_AFTER_S,
            })
          }
          if (budget && !budget.take(bytes)) {
            const max = budget.limits.maxProcessBytes
            throw new IntakeRefused({
              status: 503,
              reason: 'process_bytes',
              message:
                `the server's memory budget is full (${budget.used} of ${max} bytes, EVALSTREAM_MAX_PROCESS_BYTES); retry after ${OTLP_MEMORY_RETRY_AFTER_S} s`,
              retryAfterS: OTLP_MEMORY_RETRY_AFTER_S,
            })
          }
          byTenant.set(key, tenantHeld + bytes)
          held += bytes
        },
        release() {
          if (held === 0) return
          budget?.release(held)
          const left = (byTenant.get(key) ?? 0) - held
          if (left > 0) byTenant.set(key, left)
          else byTenant.delete(key)
          held = 0
        },
        get bytes() {
          return held
        },
      }
    },
  }
}

/** Settles like `read`, or rejects with IntakeRefused (408) once `signal` aborts. */
function beforeDeadline<T>(read: Promise<T>, signal: AbortSignal, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const late = () =>
      reject(
        new IntakeRefused({
          status: 408,
          reason: 'body_deadline',
          message: `the body did not arrive within ${timeoutMs} ms (EVALSTREAM_OTLP_BODY_TIMEOUT_MS)`,
        }),
      )
    if (signal.aborted) return late()
    signal.addEventListener('abort', late, { once: true })
    read.then(resolve, reject).finally(() => signal.removeEventListener('abort', late))
  })
}

/**
 * `chunks` as one array of `total` bytes, copied a chunk at a time with the loop given back between
 * slices (the first touch of a fresh buffer of megabytes costs page faults, tens of ms on a busy machine).
 */
async function joinSliced(chunks: readonly Uint8Array[], total: number, slicer: TurnSlicer | undefined): Promise<Uint8Array> {
  if (!slicer || chunks.length === 1) return joinChunks(chunks, total)
  const out = new Uint8Array(total)
  let offset = 0
  slicer.begin()
  for (const chunk of chunks) {
    // A chunk of a body that arrived in one piece (an in-process Request) is copied a piece at a time.
    for (let at = 0; at < chunk.byteLength; at += JOIN_PIECE_BYTES) {
      const piece = chunk.subarray(at, at + JOIN_PIECE_BYTES)
      out.set(piece, offset)
      offset += piece.byteLength
      const pause = slicer.check()
      if (pause) await pause
    }
  }
  slicer.end()
  return out
}

/** Bytes copied between two looks at the clock when joining a body's chunks. */
const JOIN_PIECE_BYTES = 256 * 1024

/** Every chunk `reader` gives, each charged before it is kept; 413 past `max` bytes. */
async function readCharged(
  reader: BodyReader,
  max: number,
  tooLarge: () => string,
  held: Holding,
  deadline?: { signal: AbortSignal; timeoutMs: number },
  slicer?: TurnSlicer,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let total = 0
  try {
    for (;;) {
      const next = reader.read()
      const { done, value } = deadline ? await beforeDeadline(next, deadline.signal, deadline.timeoutMs) : await next
      if (done) break
      total += value.byteLength
      if (total > max) throw new OtlpRequestError(413, tooLarge())
      held.charge(value.byteLength)
      chunks.push(value)
    }
  } catch (e) {
    // Past the limit while the client still sends: what it sends is dropped, so it reads the 413.
    if (deadline && e instanceof OtlpRequestError && e.status === 413) await dropRefusedBody(reader)
    else await reader.cancel().catch(() => {})
    throw e
  }
  return joinSliced(chunks, total, slicer)
}

/**
 * The body as sent, read to its end within `timeoutMs` (by `deadline`'s clock) and charged to `held`.
 * On Node the reader is node-body.ts's, on the request message itself, without node-server's two
 * web streams per request (their work per chunk was among the longest loop iterations of an OTLP
 * flood, bench/README.md).
 * @example const raw = await readBodyWithin(bodyReader(c), limits, held, AbortSignal.timeout(10_000), 10_000)
 */
export function readBodyWithin(
  body: BodyReader | null,
  limits: OtlpLimits,
  held: Holding,
  signal: AbortSignal,
  timeoutMs: number,
  slicer?: TurnSlicer,
): Promise<Uint8Array> {
  if (!body) return Promise.resolve(new Uint8Array())
  const tooLarge = () => `the body is over ${otlpLimitName('maxRequestBytes', limits)} bytes`
  return readCharged(body, limits.maxRequestBytes, tooLarge, held, { signal, timeoutMs }, slicer)
}

/**
 * A gzip body inflated, each inflated chunk charged to `held` as it comes, stopped at the
 * decompressed limit (413) or when the charge is refused; 400 for a body that is not valid gzip.
 */
export async function inflateCharged(raw: Uint8Array, limits: OtlpLimits, held: Holding, slicer?: TurnSlicer): Promise<Uint8Array> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(raw)
      controller.close()
    },
  })
  try {
    const inflated = source.pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>)
    const tooLarge = () => `the body inflates past ${otlpLimitName('maxDecompressedBytes', limits)} bytes`
    return await readCharged(inflated.getReader(), limits.maxDecompressedBytes, tooLarge, held, undefined, slicer)
  } catch (error) {
    if (error instanceof OtlpRequestError || error instanceof IntakeRefused) throw error
    throw new OtlpRequestError(400, `the body is not valid gzip: ${(error as Error).message}`)
  }
}

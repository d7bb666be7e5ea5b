/**
 * Request bodies read as streams under a byte limit: a body is refused as soon as it outgrows the
 * limit (or announces it in Content-Length), so nothing past the limit is ever buffered.
 *
 * A refused body is not simply abandoned. A server that answers and closes while the client is still
 * sending leaves unread bytes on its socket; the kernel then resets the connection, and a client that
 * has not yet read the answer sees ECONNRESET instead of the 413 (workerd closes right after such an
 * answer). So the rest of a refused body is read and dropped, within REFUSED_BODY_DRAIN_BYTES and
 * REFUSED_BODY_DRAIN_MS, as Go's net/http server reads up to 256 KiB of an unread body before it
 * closes. A body that declares more than that is cancelled at once: no answer is worth reading it.
 */

/** At most this many bytes of a refused body are read and dropped before the answer goes out. */
export const REFUSED_BODY_DRAIN_BYTES = 256 * 1024
/** A refused body still arriving after this long is cancelled, so a stalled client holds nothing. */
export const REFUSED_BODY_DRAIN_MS = 1000

/** What is used of a body's reader: ReadableStreamDefaultReader's read and cancel (node-body.ts reads a Node message so too). */
export type BodyReader = Pick<ReadableStreamDefaultReader<Uint8Array>, 'read' | 'cancel'>

/**
 * Reads the rest of a refused body and drops it, up to REFUSED_BODY_DRAIN_BYTES and until `expired` settles
 * (by default REFUSED_BODY_DRAIN_MS of the runtime's timers), then cancels what is left. Never throws.
 * @example await dropRefusedBody(c.req.raw) // then answer 413
 */
export async function dropRefusedBody(
  /** A request or response (its Content-Length is heeded), or a body or its reader part-way through. */
  source: Pick<Request, 'headers' | 'body'> | ReadableStream<Uint8Array> | BodyReader | null | undefined,
  options: { expired?: Promise<unknown> } = {},
): Promise<void> {
  const message = source && 'headers' in source ? source : undefined
  const tooLargeToDrain = message ? declaredTooLarge(message.headers, REFUSED_BODY_DRAIN_BYTES) !== undefined : false
  const body = message ? message.body : source as ReadableStream<Uint8Array> | BodyReader | null | undefined
  const reader = !body ? undefined : 'getReader' in body ? lockedOrNew(body) : body
  if (!reader) return
  if (tooLargeToDrain) {
    await reader.cancel().catch(() => {})
    return
  }
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = options.expired ?? new Promise((resolve) => (timer = setTimeout(resolve, REFUSED_BODY_DRAIN_MS)))
  const gaveUp = expired.then(() => 'expired' as const)
  try {
    for (let dropped = 0; dropped <= REFUSED_BODY_DRAIN_BYTES;) {
      const next = await Promise.race([reader.read(), gaveUp])
      if (next === 'expired' || next.done) break
      dropped += next.value.byteLength
    }
  } catch {
    // A body that broke off while being dropped has nothing left to drop.
  } finally {
    if (timer !== undefined) clearTimeout(timer)
    await reader.cancel().catch(() => {})
  }
}

/** A reader of `stream`, or undefined when someone else holds it (it is theirs to drop). */
function lockedOrNew(stream: ReadableStream<Uint8Array>): BodyReader | undefined {
  return stream.locked ? undefined : stream.getReader()
}

export type BodyRead = { ok: true; text: string } | { ok: false; reason: 'too_large'; bytes: number } | {
  ok: false
  reason: 'broken'
  error: string
}

/**
 * The declared Content-Length when it is already over `maxBytes`, else undefined.
 * @example declaredTooLarge(new Headers({ 'content-length': '20' }), 10) // 20
 */
export function declaredTooLarge(headers: Headers, maxBytes: number): number | undefined {
  const declared = Number(headers.get('content-length') ?? '')
  return Number.isFinite(declared) && declared > maxBytes ? declared : undefined
}

/**
 * Counts the bytes of a body as it is read; `over` tells when the count passed the limit.
 * @example const meter = byteMeter(1024); meter.add(chunk); if (meter.over) reader.cancel()
 */
export function byteMeter(maxBytes: number): { add(chunk: Uint8Array): void; readonly bytes: number; readonly over: boolean } {
  let bytes = 0
  return {
    add: (chunk) => void (bytes += chunk.byteLength),
    get bytes() {
      return bytes
    },
    get over() {
      return bytes > maxBytes
    },
  }
}

/**
 * The whole body as UTF-8 text, or why not: too large (reading stopped at the first chunk past the
 * limit) or broken off.
 * @example const body = await readTextLimited(c.req.raw, limits.maxRequestBytes)
 */
export async function readTextLimited(request: Request, maxBytes: number): Promise<BodyRead> {
  const declared = declaredTooLarge(request.headers, maxBytes)
  if (declared !== undefined) {
    await dropRefusedBody(request)
    return { ok: false, reason: 'too_large', bytes: declared }
  }
  if (!request.body) return { ok: true, text: '' }
  const reader = request.body.getReader()
  const meter = byteMeter(maxBytes)
  const decoder = new TextDecoder('utf-8')
  const parts: string[] = []
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      meter.add(value)
      if (meter.over) {
        await dropRefusedBody(reader)
        return { ok: false, reason: 'too_large', bytes: meter.bytes }
      }
      parts.push(decoder.decode(value, { stream: true }))
    }
  } catch (e) {
    return { ok: false, reason: 'broken', error: `the body broke off: ${(e as Error).message}` }
  }
  parts.push(decoder.decode())
  return { ok: true, text: parts.join('') }
}

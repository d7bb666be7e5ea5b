/**
 * Request bodies read as streams under a byte limit: a body is refused as soon as it outgrows the
 * limit (or announces it in Content-Length), so nothing past the limit is ever buffered.
 */

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
    await request.body?.cancel().catch(() => {})
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
        await reader.cancel().catch(() => {})
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

/**
 * Judge answers read under a byte cap. A judge's answer is a few candidates of bounded length, so a
 * body far past that is a misbehaving gateway or model server: reading stops at the first chunk
 * past the cap (and a Content-Length over it is refused unread), the connection is released, and
 * the call fails with a reason naming the cap, so the criterion is NOT_EVALUATED instead of the
 * process buffering (and parsing) whatever the server sends. Chunks are awaited one at a time, so
 * reading never holds the event loop for more than one chunk.
 */

/** Bytes of one judge answer read at most (EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES). */
export const DEFAULT_JUDGE_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
export const JUDGE_MAX_RESPONSE_BYTES_VAR = 'EVALSTREAM_JUDGE_MAX_RESPONSE_BYTES'

/** Why an answer was cut: the call's failure message. */
export function overCapMessage(who: string, maxBytes: number): string {
  return `${who} answered with more than ${maxBytes} bytes (${JUDGE_MAX_RESPONSE_BYTES_VAR}); reading stopped there and the answer was not used`
}

export type CappedText = { ok: true; text: string } | { ok: false; overCap: true }

/**
 * @example const read = await readCappedText(response, 8 << 20); if (!read.ok) return overCapMessage('the judge', 8 << 20)
 */
export async function readCappedText(response: Response, maxBytes: number): Promise<CappedText> {
  const declared = Number(response.headers.get('content-length') ?? '')
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {})
    return { ok: false, overCap: true }
  }
  if (!response.body) return { ok: true, text: '' }
  const reader = response.body.getReader()
  const decoder = new TextDecoder('utf-8')
  const parts: string[] = []
  let bytes = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.byteLength
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {})
      return { ok: false, overCap: true }
    }
    parts.push(decoder.decode(value, { stream: true }))
  }
  parts.push(decoder.decode())
  return { ok: true, text: parts.join('') }
}

/**
 * The same response with its body cut at `maxBytes`: past it the body errors (whoever reads it, an
 * SDK included, fails) and `onOver` is called first, so the caller can tell the cut from other errors.
 * @example const capped = cappedResponse(await fetch(url), 8 << 20, () => (cut = true))
 */
export function cappedResponse(response: Response, maxBytes: number, onOver: () => void): Response {
  const declared = Number(response.headers.get('content-length') ?? '')
  const over = () => {
    onOver()
    return new Error(`the answer is larger than ${maxBytes} bytes (${JUDGE_MAX_RESPONSE_BYTES_VAR})`)
  }
  if (!response.body) return response
  let body: ReadableStream<Uint8Array>
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body.cancel().catch(() => {})
    const error = over()
    body = new ReadableStream({ start: (controller) => controller.error(error) })
  } else {
    let bytes = 0
    body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength
          // Erroring the transform cancels the source: the connection is let go, not drained.
          if (bytes > maxBytes) controller.error(over())
          else controller.enqueue(chunk)
        },
      }),
    )
  }
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

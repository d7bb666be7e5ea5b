/**
 * Reads a request body as text with a byte limit, stopping (and cancelling the upload) as soon as
 * the limit is passed, so a huge body costs at most the limit in memory.
 */

/**
 * @example
 * const read = await readBodyText(c.req.raw, 1024)
 * if (!read.ok) return problem(c, read.status, read.title, read.detail)
 */
export async function readBodyText(
  request: Request,
  maxBytes: number,
): Promise<{ ok: true; text: string } | { ok: false; status: 400 | 413; title: string; detail: string }> {
  const tooLarge = {
    ok: false as const,
    status: 413 as const,
    title: 'Request body too large',
    detail: `the request body is larger than ${maxBytes} bytes`,
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (Number.isFinite(declared) && declared > maxBytes) {
    await request.body?.cancel().catch(() => {})
    return tooLarge
  }
  if (!request.body) return { ok: true, text: '' }
  const reader = request.body.getReader()
  const utf8 = new TextDecoder()
  let bytes = 0
  let text = ''
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>
    try {
      chunk = await reader.read()
    } catch (e) {
      return { ok: false, status: 400, title: 'Body could not be read', detail: `the upload broke off: ${(e as Error).message}` }
    }
    const { done, value } = chunk
    if (done) break
    bytes += value.byteLength
    if (bytes > maxBytes) {
      await reader.cancel('body too large').catch(() => {})
      return tooLarge
    }
    text += utf8.decode(value, { stream: true })
  }
  return { ok: true, text: text + utf8.decode() }
}

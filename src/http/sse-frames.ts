/**
 * Splits an SSE byte stream into whole frames, each exactly as received (terminating blank line
 * included), so a proxy can pass the agent's frames through unchanged and slip its own frames in
 * between. It only finds boundaries; parsing is the ingest decoder's job.
 */

// A line ends with CRLF, LF or CR; a frame ends with an empty line, i.e. two line ends in a row.
const FRAME_END = /(?:\r\n|\n|\r(?!\n))(?:\r\n|\n|\r(?!\n))/

/**
 * @example
 * const split = sseFrameSplitter()
 * split.push('data: 1\n\nda') // ['data: 1\n\n']
 * split.end() // ['da']
 */
export function sseFrameSplitter(): { push(text: string): string[]; end(): string[] } {
  let buffer = ''
  return {
    push(text) {
      buffer += text
      const frames: string[] = []
      for (;;) {
        // A trailing CR may be the first half of a CRLF still on its way: do not decide on it yet.
        const searchable = buffer.endsWith('\r') ? buffer.slice(0, -1) : buffer
        const match = FRAME_END.exec(searchable)
        if (!match) break
        const end = match.index + match[0].length
        frames.push(buffer.slice(0, end))
        buffer = buffer.slice(end)
      }
      return frames
    },
    end() {
      const rest = buffer
      buffer = ''
      return rest === '' ? [] : [rest]
    },
  }
}

/** A message as hono's `writeSSE` takes it. */
export type SseMessage = { data: string; event?: string; id?: string }

/**
 * The bytes hono's `streamSSE().writeSSE(message)` writes, as a string, so many messages can go
 * out in one write (one write per result cost more than scoring it). Same field order and rules:
 * `event:`, one `data:` per line, `id:`, blank line.
 * @example formatSseMessage({ id: '3', event: 'criterion.result', data: '{}' }) // 'event: criterion.result\ndata: {}\nid: 3\n\n'
 */
export function formatSseMessage(message: SseMessage): string {
  for (const value of [message.event, message.id])
    if (value && /[\r\n]/.test(value)) throw new Error('SSE event and id must not contain "\\r" or "\\n"')
  // JSON text never has a raw line break: skip the split (a regex pass over a case result of megabytes).
  const text = message.data
  const multiline = text.includes('\n') || text.includes('\r')
  const data = `data: ${multiline ? text.split(/\r\n|\r|\n/).join('\ndata: ') : text}`
  const event = message.event ? `event: ${message.event}\n` : ''
  const id = message.id !== undefined ? `\nid: ${message.id}` : ''
  return `${event}${data}${id}\n\n`
}

/**
 * The text to add so a frame left unterminated (the stream ended inside it) ends with a blank
 * line, whatever line ends it uses. Counts the line ends it already has at its end (CRLF is one).
 * @example frameTerminator('data: 1') // '\n\n'
 * @example frameTerminator('data: 1\n') // '\n'
 * @example frameTerminator('data: 1\r\r') // '' (already whole: the splitter was waiting for a possible LF)
 */
export function frameTerminator(rest: string): string {
  const tail = /[\r\n]*$/.exec(rest)![0]
  const lineEnds = tail.match(/\r\n|\n|\r/g)?.length ?? 0
  // Only line ends (no partial line), or a blank line already: nothing to add.
  if (tail.length === rest.length || lineEnds >= 2) return ''
  // One line end: one more, except after a lone CR, where an LF would merge into one CRLF.
  if (lineEnds === 1) return rest.endsWith('\n') ? '\n' : '\n\n'
  return '\n\n'
}

export type FrameStreamOptions = {
  /**
   * Asked when the input ends with an unfinished frame: true (default) passes it on terminated,
   * false drops it (the input broke off, so the rest is a torn frame, not a frame).
   */
  keepRest?(rest: string): boolean
}

/**
 * SSE text in, whole frames out (one chunk per frame, exactly as received); an unterminated last
 * frame is terminated, so whatever is written after it starts a frame of its own.
 * @example
 * body.pipeThrough(new TextDecoderStream()).pipeThrough(sseFrameStream())
 */
export function sseFrameStream(options: FrameStreamOptions = {}): TransformStream<string, string> {
  const split = sseFrameSplitter()
  return new TransformStream<string, string>({
    transform(text, controller) {
      for (const frame of split.push(text)) controller.enqueue(frame)
    },
    flush(controller) {
      for (const rest of split.end()) if (options.keepRest?.(rest) ?? true) controller.enqueue(rest + frameTerminator(rest))
    },
  })
}

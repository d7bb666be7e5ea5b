/**
 * Splits an SSE byte stream into whole frames, each exactly as received (terminating blank line
 * included), so a proxy can pass the agent's frames through unchanged and slip its own frames in
 * between. It only finds boundaries; parsing is the ingest decoder's job.
 */
import { MAX_EVENT_BYTES } from '../ingest/index.ts'

/** Room for field names and line ends around an event of exactly the byte limit (as the ingest splitter). */
export const SSE_FRAME_SLACK = 1024

/** Where an agent frame longer than the limit was: its text is gone, only its size remains. */
export type OversizedFrame = { oversized: true; chars: number }

export type SplitterOptions = {
  /**
   * UTF-16 code units one frame may hold while buffered (default: EVALSTREAM_MAX_EVENT_BYTES' default
   * plus SSE_FRAME_SLACK, the ingest splitter's bound). A longer frame is skipped to its end without
   * being kept and comes out as an OversizedFrame in its place.
   */
  maxFrameChars?: number
}

/**
 * Scans each code unit once: the text of the frame under way is kept as a list of pieces (joined
 * once, when the frame ends), and the scan state (line ends in a row, a CR that may be half of a
 * CRLF) carries over between pushes, so a frame sent in many chunks costs time linear in its size.
 * A line ends with CRLF, LF or CR; a frame ends with an empty line, i.e. two line ends in a row.
 * @example
 * const split = sseFrameSplitter()
 * split.push('data: 1\n\nda') // ['data: 1\n\n']
 * split.end() // ['da']
 */
export function sseFrameSplitter(options: SplitterOptions = {}): {
  push(text: string): Array<string | OversizedFrame>
  end(): Array<string | OversizedFrame>
  /** Code units examined so far: equal to the text pushed, whatever the chunking. */
  scanned(): number
} {
  const max = options.maxFrameChars ?? MAX_EVENT_BYTES + SSE_FRAME_SLACK
  let pieces: string[] = []
  /** Code units of the frame under way (kept or, once over the limit, skipped). */
  let frameChars = 0
  let oversized = false
  let lineEnds = 0
  /** The last code unit seen was a CR: an LF right after it belongs to the same line end. */
  let afterCr = false
  /** The frame's second line end was a CR: the frame ends after it, or after an LF that follows. */
  let closingCr = false
  let scanned = 0

  const keep = (text: string) => {
    frameChars += text.length
    if (oversized) return
    if (frameChars > max) {
      oversized = true
      pieces = []
      return
    }
    if (text !== '') pieces.push(text)
  }
  const take = (): string | OversizedFrame => {
    const frame: string | OversizedFrame = oversized ? { oversized: true, chars: frameChars } : pieces.join('')
    pieces = []
    frameChars = 0
    oversized = false
    lineEnds = 0
    afterCr = false
    closingCr = false
    return frame
  }
  return {
    push(text) {
      const frames: Array<string | OversizedFrame> = []
      let start = 0
      for (let i = 0; i < text.length; i++) {
        scanned += 1
        const code = text.charCodeAt(i)
        if (closingCr) {
          // The frame ended with CR; an LF right after it is that line end's second half.
          const end = code === 10 ? i + 1 : i
          keep(text.slice(start, end))
          frames.push(take())
          start = end
          if (code === 10) continue
        }
        if (code === 10) {
          if (afterCr) afterCr = false
          else if (++lineEnds === 2) {
            keep(text.slice(start, i + 1))
            frames.push(take())
            start = i + 1
          }
        } else if (code === 13) {
          afterCr = true
          if (++lineEnds === 2) closingCr = true
        } else {
          afterCr = false
          lineEnds = 0
        }
      }
      keep(text.slice(start))
      return frames
    },
    end() {
      if (frameChars === 0) return []
      return [take()]
    },
    scanned: () => scanned,
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
  const text = message.data
  // JSON text never has a raw line break: skip the split (a regex pass over a case result of megabytes).
  const data = hasLineBreak(text) ? text.split(/\r\n|\r|\n/).join('\ndata: ') : text
  return `${sseFrameHead(message)}${data}${sseFrameTail(message)}`
}

/**
 * What `formatSseMessage` writes before the data. Data without a line break (`hasLineBreak`) goes
 * between head and tail as it is, so its bytes, encoded once, can be written between theirs.
 * @example sseFrameHead({ event: 'case.result' }) // 'event: case.result\ndata: '
 */
export function sseFrameHead(message: { event?: string }): string {
  checkField(message.event)
  return message.event ? `event: ${message.event}\ndata: ` : 'data: '
}

/**
 * What `formatSseMessage` writes after the data.
 * @example sseFrameTail({ id: '3' }) // '\nid: 3\n\n'
 */
export function sseFrameTail(message: { id?: string }): string {
  checkField(message.id)
  return message.id !== undefined ? `\nid: ${message.id}\n\n` : '\n\n'
}

/** Data with a CR or LF is written as one `data:` line per line. */
export function hasLineBreak(data: string): boolean {
  return data.includes('\n') || data.includes('\r')
}

function checkField(value: string | undefined): void {
  if (value && /[\r\n]/.test(value)) throw new Error('SSE event and id must not contain "\\r" or "\\n"')
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

export type FrameStreamOptions = SplitterOptions & {
  /**
   * Asked when the input ends with an unfinished frame: true (default) passes it on terminated,
   * false drops it (the input broke off, so the rest is a torn frame, not a frame).
   */
  keepRest?(rest: string): boolean
  /** false: an unfinished last frame passes on exactly as received (a body that may not be SSE at all). */
  terminateRest?: boolean
}

/**
 * SSE text in, whole frames out (one chunk per frame, exactly as received); an unterminated last
 * frame is terminated, so whatever is written after it starts a frame of its own. A frame over the
 * limit comes out as an OversizedFrame (its text was never kept).
 * @example
 * body.pipeThrough(new TextDecoderStream()).pipeThrough(sseFrameStream())
 */
export function sseFrameStream(options: FrameStreamOptions = {}): TransformStream<string, string | OversizedFrame> {
  const split = sseFrameSplitter(options)
  return new TransformStream<string, string | OversizedFrame>({
    transform(text, controller) {
      for (const frame of split.push(text)) controller.enqueue(frame)
    },
    flush(controller) {
      for (const rest of split.end()) {
        if (typeof rest !== 'string') controller.enqueue(rest)
        else if (options.keepRest?.(rest) ?? true) controller.enqueue(options.terminateRest === false ? rest : rest + frameTerminator(rest))
      }
    },
  })
}

/**
 * What a client gets in place of an agent frame over the limit: an SSE comment (clients skip it)
 * saying what was dropped and which setting bounds it.
 * @example oversizedNote({ oversized: true, chars: 5 }, 4) // ': evalstream dropped an agent frame of 5 characters ...\n\n'
 */
export function oversizedNote(frame: OversizedFrame, maxEventBytes: number): string {
  return `: evalstream dropped an agent frame of ${frame.chars} characters, over the limit of ${maxEventBytes} bytes per event (EVALSTREAM_MAX_EVENT_BYTES)\n\n`
}

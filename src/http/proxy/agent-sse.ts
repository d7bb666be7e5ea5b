/**
 * What the proxy needs to know about agent SSE on every path, scored or not: which requests are
 * `/run_sse` (however the path is spelled), which bodies are event streams, and the body filter
 * that renames agent frames named `evalstream` (so a client can trust every such frame is ours)
 * within the per-event byte limit.
 */
import { type OversizedFrame, oversizedNote, SSE_FRAME_SLACK, sseFrameStream } from '../sse-frames.ts'
import { renameAgentEvalstream } from './interleave.ts'

/** The one path evalstream scores: what every spelling below is forwarded to the agent as. */
export const RUN_SSE_PATH = '/run_sse'

/**
 * Whether a path is `/run_sse` to some ADK server: ADK's Python server (Starlette) decodes `%5F`
 * and redirects a trailing slash to the route, its Express-based servers match any case and a
 * trailing slash, Java servlet containers drop `;parameters` from a segment, and proxies in front
 * often merge `//`. Every such spelling is scored (forwarded as `/run_sse`), none relayed unscored.
 * @example isRunSsePath('//RUN_SSE;x/') // true; isRunSsePath('/run_sse/x') // false
 */
export function isRunSsePath(path: string): boolean {
  // Cheap refusal first: far longer than any spelling of /run_sse.
  if (path.length > 200) return false
  let decoded = path
  try {
    decoded = decodeURIComponent(path)
  } catch {
    // Not valid percent-encoding: compared as written.
  }
  const segments = decoded
    .split('/')
    .map((segment) => segment.replace(/;.*$/s, ''))
    .filter((segment) => segment !== '')
  return segments.length === 1 && segments[0]!.toLowerCase() === 'run_sse'
}

/**
 * Whether a Content-Type names an event stream, in any case and with any parameters.
 * @example isEventStream('Text/Event-Stream; charset=UTF-8') // true
 */
export function isEventStream(contentType: string | null): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'text/event-stream'
}

/**
 * The agent's body with its frames renamed, frame by frame as they arrive, each frame bounded by
 * the per-event byte limit (a longer one is replaced by a comment saying so). Everything else
 * passes as received, an unfinished end included.
 * @example new Response(renamedAgentBody(response.body, limits.maxEventBytes))
 */
export function renamedAgentBody(body: ReadableStream<Uint8Array>, maxEventBytes: number): ReadableStream<Uint8Array> {
  return (
    body
      // TypeScript's DOM types let TextDecoderStream take any BufferSource, which a byte stream is not typed as.
      .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
      .pipeThrough(sseFrameStream({ maxFrameChars: maxEventBytes + SSE_FRAME_SLACK, terminateRest: false }))
      .pipeThrough(
        new TransformStream<string | OversizedFrame, string>({
          transform(frame, controller) {
            controller.enqueue(typeof frame === 'string' ? renameAgentEvalstream(frame) : oversizedNote(frame, maxEventBytes))
          },
        }),
      )
      .pipeThrough(new TextEncoderStream())
  )
}

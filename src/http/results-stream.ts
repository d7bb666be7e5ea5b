/**
 * Streams a session's results as SSE: `id:` is the result's seq, `event:` its type, `data:` JSON.
 * One platform stream: the log subscription's batches (result-source.ts), each put in as its SSE
 * bytes (`sseChunkBytes`, encoded once for all of a session's subscribers).
 *
 * A subscriber first gets everything after its `Last-Event-ID` from the log, then live results,
 * with no gap and no duplicate. The stream closes after `case.result`, when the client goes away
 * (the response body is cancelled, or the request signal aborts), or, for the full-duplex events
 * upload, when the upload is done.
 */
import type { Context } from 'hono'
import { resultDataBytes, resultDataJson, SHARED_BYTES_MIN_CHARS } from '../session/result-json.ts'
import type { HostedSession } from '../session/session.ts'
import type { LoggedEvent } from '../session/result-log.ts'
import { type LogSource, logStream, type ResultChunk, type SseWriter } from './result-source.ts'
import { formatSseMessage, hasLineBreak, sseFrameHead, sseFrameTail } from './sse-frames.ts'

export type { SseWriter } from './result-source.ts'

/** A comment line this often keeps proxies from timing out an idle stream and reveals dead peers. */
export const HEARTBEAT_MS = 15_000

/** Queued results are written together, up to about this many characters per write. */
export const MAX_BATCH_CHARS = 64 * 1024

export type StreamOptions = {
  /** Send results with seq greater than this (the client's Last-Event-ID, or 0). */
  after: number
  /** Stop (after flushing what is queued) when this settles; without it, stop at case.result. */
  until?: Promise<unknown>
  /** Last words before the stream closes normally (e.g. the upload summary). */
  finish?(stream: SseWriter): Promise<void>
}

const utf8 = new TextEncoder()

/** A batch's SSE bytes, known by its first and last result (logged results are never changed). */
type EncodedBatch = { first: object; last: object; count: number; pieces: Uint8Array[]; bytes: number }
/**
 * The last batches encoded, newest last. A session's subscribers are woken by the same append and
 * take the same results in the same turn: the first one encodes the batch, the others write the
 * same bytes (a write never changes them, on Node or workerd). Before, every subscriber made its
 * own frame strings and encoded them, the largest allocation of the upload-to-SSE path. Bounded
 * in count and bytes: a batch larger than RECENT_BATCH_BYTES is encoded for its reader alone. A
 * case result's shared bytes count too: a batch kept here must not keep them past their own cache's
 * bound, and rebuilding such a batch encodes only the frames around them.
 */
const recentBatches: EncodedBatch[] = []
const RECENT_BATCHES = 16
const RECENT_BATCH_BYTES = 256 * 1024

function encodeBatch(results: readonly LoggedEvent<string>[]): Uint8Array[] {
  const first = results[0]!
  const last = results[results.length - 1]!
  for (let i = recentBatches.length - 1; i >= 0; i--) {
    const known = recentBatches[i]!
    if (known.first === first && known.last === last && known.count === results.length) return known.pieces
  }
  const pieces: Uint8Array[] = []
  let batch = ''
  let bytes = 0
  const put = (piece: Uint8Array) => {
    pieces.push(piece)
    bytes += piece.byteLength
  }
  for (const event of results) {
    const id = String(event.seq)
    const text = resultDataJson(event.data)
    // A case result's bytes are made once for every stream, the `/end` answer and the snapshot: the
    // frame is its head, those bytes and its tail, what formatSseMessage makes of one line of data.
    if (text.length >= SHARED_BYTES_MIN_CHARS && !hasLineBreak(text)) {
      put(utf8.encode(batch + sseFrameHead({ event: event.type })))
      put(resultDataBytes(event.data))
      batch = sseFrameTail({ id })
      continue
    }
    batch += formatSseMessage({ id, event: event.type, data: text })
    if (batch.length >= MAX_BATCH_CHARS) {
      put(utf8.encode(batch))
      batch = ''
    }
  }
  if (batch !== '') put(utf8.encode(batch))
  if (bytes <= RECENT_BATCH_BYTES) {
    if (recentBatches.length >= RECENT_BATCHES) recentBatches.shift()
    recentBatches.push({ first, last, count: results.length, pieces, bytes })
  }
  return pieces
}

/**
 * Result batches in, SSE bytes out: one frame per result (through `formatSseMessage`, so the bytes
 * are hono's `writeSSE` bytes), many frames per chunk, a new chunk past MAX_BATCH_CHARS; a case
 * result's frame is three chunks, the middle one its bytes as made once (`resultDataBytes`). It encodes
 * each chunk itself: a TextEncoderStream after it was one more stream stage per chunk, and the
 * stream stages were ~6% of a loaded server's main thread. A batch another subscriber just took
 * is written as the bytes encoded for it.
 * @example
 * resultSource(session, { after: 0, heartbeatMs: HEARTBEAT_MS }).pipeThrough(sseResultFrames())
 */
export function sseResultFrames(): TransformStream<ResultChunk, Uint8Array> {
  return new TransformStream<ResultChunk, Uint8Array>({ transform: (chunk, controller) => sseChunkBytes(controller, chunk) })
}

/** One chunk's SSE bytes, enqueued: what `sseResultFrames` does per chunk, without a stream stage of its own. */
export function sseChunkBytes(controller: { enqueue(piece: Uint8Array): void }, chunk: ResultChunk): void {
  if ('text' in chunk) return controller.enqueue(utf8.encode(chunk.text))
  if (chunk.results.length === 0) return
  for (const piece of encodeBatch(chunk.results)) controller.enqueue(piece)
}

/**
 * @example
 * app.get('/results', (c) => streamResults(c, session, { after: lastEventId(c) }))
 */
export function streamResults(c: Context, session: HostedSession, options: StreamOptions): Response {
  return streamLog(c, session, options)
}

/**
 * Any result log as SSE, with the same bounds (a stalled reader costs a counter, not a queue), the
 * same heartbeat and the same resume: a session's results, and an eval set run's progress, which
 * ends at `run.result`.
 * @example app.get('/runs/:id/results', (c) => streamLog(c, run, { after: lastEventId(c), endType: 'run.result' }))
 */
export function streamLog<T extends string>(c: Context, source: LogSource<T>, options: StreamOptions & { endType?: T }): Response {
  // workerd fires the request signal only with enable_request_signal, and never inside a Durable
  // Object: there a dead peer shows up when a write fails, which cancels the body (heartbeats help).
  const body = logStream<T, Uint8Array>(source, { ...options, signal: c.req.raw.signal, heartbeatMs: HEARTBEAT_MS }, sseChunkBytes)
  // The headers hono's streamSSE sets, so nothing changes for clients.
  c.header('Transfer-Encoding', 'chunked')
  c.header('Content-Type', 'text/event-stream')
  c.header('Cache-Control', 'no-cache')
  c.header('Connection', 'keep-alive')
  return c.newResponse(body)
}

/** The resume point: `Last-Event-ID` header, or `?last_event_id=` for clients that cannot set headers. */
export function lastEventId(c: Context): number {
  const raw = c.req.header('last-event-id') ?? c.req.query('last_event_id') ?? '0'
  const n = Number.parseInt(raw, 10)
  return Number.isFinite(n) && n > 0 ? n : 0
}

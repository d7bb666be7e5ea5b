/**
 * A result log as a `ReadableStream` of batches (a session's results, or an eval set run's
 * progress: both are result logs, src/session/result-log.ts), fed by the result log's subscription.
 * It subscribes before it reads the backlog and drops any seq it has already passed on, so a
 * reader gets everything after its resume point with no gap and no duplicate. Each pull hands
 * over everything queued since the last one: batching falls out of backpressure (a slow reader
 * gets bigger batches, not more of them).
 *
 * Memory stays bounded for a reader that stops reading: past MAX_QUEUED_RESULTS queued results
 * the queue is dropped and the next pull reads the missed results back from the log, which keeps
 * them anyway. Nothing is lost; a stalled reader costs one counter, not a growing queue.
 *
 * A session the store lets go (evicted, expired, deleted) closes its log: the reader gets what was
 * queued, then an `error` frame saying why, then the end of the stream.
 */
import type { StreamClosed } from '../engine/result-events.ts'
import type { LogClosing, LoggedEvent, ResultLog } from '../session/result-log.ts'
import { formatSseMessage, type SseMessage } from './sse-frames.ts'

/** Results queued for one reader before it falls back to re-reading the log (count, not bytes). */
export const MAX_QUEUED_RESULTS = 1_000

/** One chunk: results in seq order, or SSE text ready to send (heartbeat, last words). */
export type ResultChunk = { results: LoggedEvent<string>[] } | { text: string }

/** Lets the last words of a stream be written as SSE messages (same shape as hono's writeSSE). */
export type SseWriter = { writeSSE(message: SseMessage): Promise<void> }

export type ResultSourceOptions = {
  /** Pass on results with seq greater than this; clamped to the log's last seq (see below). */
  after: number
  /** Stop (after passing on what is queued) when this settles; without it, stop at case.result. */
  until?: Promise<unknown>
  /** Last words before a normal close (not when the reader went away). */
  finish?(out: SseWriter): Promise<void>
  /** The reader went away (request aborted): release everything now. */
  signal?: AbortSignal
  /** A heartbeat chunk this often while the reader keeps up. */
  heartbeatMs: number
  /** The event type that ends the stream when no `until` is given; `case.result` by default. */
  endType?: string
}

/** What a stream reads: the log, and the seq of its last event once it is in (a session's case.result). */
export type LogSource<T extends string> = { log: ResultLog<T>; readonly endSeq: number | undefined }

/**
 * @example
 * const stream = resultSource(session, { after: 0, heartbeatMs: 15_000 })
 */
export function resultSource<T extends string>(source: LogSource<T>, options: ResultSourceOptions): ReadableStream<ResultChunk> {
  return logStream<T, ResultChunk>(source, options, (controller, chunk) => controller.enqueue(chunk))
}

/**
 * The same stream with each chunk put in by `put` (which may enqueue it as something else, e.g. its
 * SSE bytes: results-stream.ts encodes here rather than in a TransformStream after it, one stream
 * stage less per batch on every subscriber's path).
 * @example logStream(session, options, (controller, chunk) => controller.enqueue(encode(chunk)))
 */
export function logStream<T extends string, C>(
  source: LogSource<T>,
  options: ResultSourceOptions,
  put: (controller: ReadableStreamDefaultController<C>, chunk: ResultChunk) => void,
): ReadableStream<C> {
  const { log } = source
  const endType = options.endType ?? 'case.result'
  // A resume point past the end (a stale or foreign id) would skip every future result,
  // case.result included, and hold the stream open for good: resume from the end instead.
  let last = Math.min(options.after, log.lastSeq())
  let queue: LoggedEvent<T>[] = []
  let overflowed = false
  let untilSettled = false
  // Set when the session was evicted or deleted: the reader gets an `error` frame, then the end.
  let closing: LogClosing | undefined
  let released = false
  let wake: (() => void) | undefined
  const nudge = () => {
    const w = wake
    wake = undefined
    w?.()
  }
  let unsubscribe = () => {}
  let heartbeat: ReturnType<typeof setInterval> | undefined
  const release = () => {
    if (released) return
    released = true
    unsubscribe()
    clearInterval(heartbeat)
    options.signal?.removeEventListener('abort', onAbort)
    nudge()
  }
  let closeOnAbort: (() => void) | undefined
  const onAbort = () => {
    release()
    closeOnAbort?.()
  }

  /** Results not passed on yet, cut after the end event (case.result) when that ends the stream. */
  const take = (): { results: LoggedEvent<T>[]; done: boolean } => {
    const pending = overflowed ? log.readAfter(last) : queue
    overflowed = false
    queue = []
    const results: LoggedEvent<T>[] = []
    for (const event of pending) {
      if (event.seq <= last) continue
      last = event.seq
      results.push(event)
      if (!options.until && event.type === endType) return { results, done: true }
    }
    return { results, done: false }
  }

  return new ReadableStream<C>(
    {
      start(controller) {
        unsubscribe = log.subscribe((event) => {
          if (overflowed) return
          if (queue.length >= MAX_QUEUED_RESULTS) {
            overflowed = true
            queue = []
          } else queue.push(event)
          nudge()
        }, (reason) => {
          closing = reason
          nudge()
        })
        queue = log.readAfter(last)
        closeOnAbort = () => {
          try {
            controller.close()
          } catch {
            // already closed or cancelled
          }
        }
        if (options.signal?.aborted) return onAbort()
        options.signal?.addEventListener('abort', onAbort, { once: true })
        const settle = () => {
          untilSettled = true
          nudge()
        }
        options.until?.then(settle, settle)
        heartbeat = setInterval(() => {
          // Only while the reader keeps up: a ping queued behind a stalled reader tells nobody anything.
          if ((controller.desiredSize ?? 0) > 0) put(controller, { text: ': ping\n\n' })
        }, options.heartbeatMs)
      },
      async pull(controller) {
        for (;;) {
          if (released) return
          const { results, done } = take()
          if (results.length > 0) put(controller, { results })
          if (closing) {
            const closed: StreamClosed = { message: closing.message }
            put(controller, { text: formatSseMessage({ event: 'error', data: JSON.stringify(closed) }) })
            release()
            return controller.close()
          }
          // Past the case result (just sent, or before this reader's resume point): nothing more will come.
          const caseSeq = source.endSeq
          if (done || (!options.until && caseSeq !== undefined && last >= caseSeq)) {
            release()
            return controller.close()
          }
          if (results.length > 0) return
          // What the settled promise caused was emitted (and queued) before it settled, so the
          // take above has passed it all on: only the last words are left.
          if (untilSettled) {
            release()
            await options.finish?.({ writeSSE: async (m) => put(controller, { text: formatSseMessage(m) }) })
            return controller.close()
          }
          await new Promise<void>((resolve) => {
            wake = resolve
          })
        }
      },
      cancel() {
        release()
      },
    },
    // One batch ahead at most: while the reader is slow, results wait in the queue, where they merge.
    { highWaterMark: 1 },
  )
}

/**
 * Streams a session's results as SSE: `id:` is the result's seq, `event:` its type, `data:` JSON.
 * A subscriber first gets everything after its `Last-Event-ID` from the log, then live results,
 * with no gap and no duplicate (it subscribes before reading the backlog and drops seq it has
 * already sent). The stream closes after `case.result`, when the client goes away, or, for the
 * full-duplex events upload, when the upload is done.
 */
import type { Context } from 'hono'
import { streamSSE, type SSEStreamingApi } from 'hono/streaming'
import type { ResultEvent } from '../engine/types.ts'
import type { LogClosing } from '../host/result-log.ts'
import type { HostedSession } from '../host/session.ts'
import { formatSseMessage } from './sse-frames.ts'

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
  finish?(stream: SSEStreamingApi): Promise<void>
}

function frameOf(event: ResultEvent): string {
  return formatSseMessage({ id: String(event.seq), event: event.type, data: JSON.stringify(event.data) })
}

/**
 * @example
 * app.get('/results', (c) => streamResults(c, session, { after: lastEventId(c) }))
 */
export function streamResults(c: Context, session: HostedSession, options: StreamOptions): Response {
  return streamSSE(c, async (stream) => {
    const queue: ResultEvent[] = []
    let wake: (() => void) | undefined
    let stopped = false
    let untilSettled = false
    const nudge = () => {
      const w = wake
      wake = undefined
      w?.()
    }
    let closing: LogClosing | undefined
    const stop = () => {
      stopped = true
      nudge()
    }
    const unsubscribe = session.log.subscribe(
      (event) => {
        queue.push(event)
        nudge()
      },
      // The session was evicted or deleted: say so in an `error` frame, then close.
      (reason) => {
        closing = reason
        stop()
      },
    )
    // A client that hangs up cancels its subscription (workerd needs enable_request_signal).
    c.req.raw.signal.addEventListener('abort', stop, { once: true })
    stream.onAbort(stop)
    options.until?.finally(() => {
      untilSettled = true
      nudge()
    })
    const heartbeat = setInterval(() => {
      stream.write(': ping\n\n').catch(stop)
    }, HEARTBEAT_MS)

    let last = options.after
    /**
     * Writes the results not sent yet, many per write. Returns true when the stream is done
     * (it sent the case result and has no `until`): what follows case.result is not sent.
     */
    const sendAll = async (events: readonly ResultEvent[]): Promise<boolean> => {
      let batch = ''
      let done = false
      for (const event of events) {
        if (event.seq <= last) continue
        last = event.seq
        batch += frameOf(event)
        done = !options.until && event.type === 'case.result'
        if (done) break
        if (batch.length >= MAX_BATCH_CHARS) {
          await stream.write(batch)
          batch = ''
        }
      }
      if (batch !== '') await stream.write(batch)
      return done
    }
    try {
      if (await sendAll(session.log.readAfter(options.after))) return
      // Resuming after the case result of an ended session: nothing more will ever come.
      if (!options.until && session.caseResultSeq !== undefined && last >= session.caseResultSeq) return
      while (!stopped) {
        while (queue.length > 0) if (await sendAll(queue.splice(0))) return
        if (untilSettled) break
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
      if (closing) {
        await sendAll(queue.splice(0))
        await stream.writeSSE({ event: 'error', data: JSON.stringify({ message: closing.message }) })
      } else if (!stopped) await options.finish?.(stream)
    } finally {
      clearInterval(heartbeat)
      unsubscribe()
      c.req.raw.signal.removeEventListener('abort', stop)
    }
  })
}

/** The resume point: `Last-Event-ID` header, or `?last_event_id=` for clients that cannot set headers. */
export function lastEventId(c: Context): number {
  const raw = c.req.header('last-event-id') ?? c.req.query('last_event_id') ?? '0'
  const n = Number.parseInt(raw, 10)
  return Number.isFinite(n) && n > 0 ? n : 0
}

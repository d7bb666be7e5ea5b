/**
 * `POST /v1/sessions/{id}/events`: one event, a JSON array, NDJSON or a captured /run_sse stream.
 * The body is decoded and scored while it uploads: each chunk goes to the decoder as it arrives,
 * so results exist before the upload ends. With `Accept: text/event-stream` they stream back in
 * the same response (full duplex); otherwise the answer is 202 with what was accepted and rejected.
 * Limits (src/ingest/limits.ts): a body past the request byte limit stops being read (413); a
 * session at its event limit takes no more (422); one event past a per-event limit is rejected
 * with its index while its neighbours are kept.
 */
import type { Context } from 'hono'
import type { RejectedEvent } from '../engine/types.ts'
import {
  createEventDecoder,
  DEFAULT_LIMITS,
  formatFromContentType,
  type DecodedEvent,
  type EventFormat,
  type IngestIssue,
  type Limits,
  limitMember,
  limitName,
} from '../ingest/index.ts'
import type { EventRejectReason, HostMetrics, UploadRefusal } from '../host/metrics.ts'
import { problem } from './problem.ts'
import { byteMeter, declaredTooLarge } from './read-body.ts'
import { streamResults } from './results-stream.ts'
import { createTurnSlicer, type TurnSlicer, type TurnSlicerOptions } from '../ingest/turn-slicer.ts'
import type { HostedSession } from '../host/session.ts'

/** Bytes handed to the decoder at once: decoding them is well under one turn slice. */
const DECODE_PIECE_BYTES = 16 * 1024

export type UploadSummary = { accepted: number; rejected: RejectedEvent[] }

/** Why an upload stopped early, with the status a non-streaming answer gets. */
type UploadFailure = { ok: false; status: 400 | 413 | 422 | 500; title: string; error: string; limit?: { name: string; value: number } }
type UploadOutcome = { ok: true } | UploadFailure


/** @example app.post('/:id/events', (c) => eventsRoute(c, session, deps.limits)) */
export async function eventsRoute(c: Context, session: HostedSession, limits: Limits = DEFAULT_LIMITS, turns?: TurnSlicerOptions): Promise<Response> {
  const metrics = c.get('evalstreamMetrics')
  const refuse = (reason: UploadRefusal) => metrics?.events.refused(reason)
  const contentType = c.req.header('content-type')
  const format = formatFromContentType(contentType ?? 'application/json')
  if (!format) {
    refuse('unsupported_format')
    return problem(
      c,
      415,
      'Unsupported event format',
      `Content-Type '${contentType}' is not one of application/json, application/x-ndjson, text/event-stream`,
    )
  }
  if (session.ended) {
    refuse('session_ended')
    return problem(c, 409, 'Session has ended', `session '${session.id}' has ended; it takes no more events`)
  }
  const declared = declaredTooLarge(c.req.raw.headers, limits.maxRequestBytes)
  if (declared !== undefined) {
    const failure = tooLarge(limits, `the body declares ${declared} bytes`)
    refuse('too_large')
    return problem(c, 413, failure.title, failure.error, { limit: failure.limit })
  }
  if (session.recordedEvents >= limits.maxEventsPerSession) {
    const failure = sessionFull(session, limits)
    refuse('session_full')
    return problem(c, 422, failure.title, failure.error, { limit: failure.limit })
  }

  const summary: UploadSummary = { accepted: 0, rejected: [] }
  const upload = feedBody(c.req.raw.body, format, session, summary, limits, metrics, turns).then((outcome) => {
    if (!outcome.ok) refuse(REFUSAL_BY_STATUS[outcome.status])
    return outcome
  })
  if ((c.req.header('accept') ?? '').includes('text/event-stream')) {
    return streamResults(c, session, {
      after: session.log.lastSeq(),
      until: upload,
      finish: async (stream) => {
        const outcome = await upload
        const data = outcome.ok ? summary : { ...summary, error: outcome.error, ...(outcome.limit ? { limit: outcome.limit } : {}) }
        await stream.writeSSE({ event: 'upload.summary', data: JSON.stringify(data) })
      },
    })
  }
  const outcome = await upload
  if (outcome.ok) return c.json(summary, 202)
  const extensions = { ...(outcome.limit ? { limit: outcome.limit } : {}), ...summary }
  return problem(c, outcome.status, outcome.title, outcome.error, extensions)
}

/** The metrics reason of an upload that stopped part-way, by the status it is answered with. */
const REFUSAL_BY_STATUS: Record<UploadFailure['status'], UploadRefusal> = {
  400: 'broken_body',
  413: 'too_large',
  422: 'session_full',
  500: 'internal_error',
}

function tooLarge(limits: Limits, what: string): UploadFailure {
  const name = limitName('maxRequestBytes', limits)
  const error = `${what}: the limit is ${limits.maxRequestBytes} bytes per request (${name}); the rest was not read`
  return { ok: false, status: 413, title: 'Request body too large', error, limit: limitMember('maxRequestBytes', limits) }
}

function sessionFull(session: HostedSession, limits: Limits): UploadFailure {
  const name = limitName('maxEventsPerSession', limits)
  const error = `session '${session.id}' holds ${session.recordedEvents} events, the limit (${name}); it takes no more`
  return { ok: false, status: 422, title: 'Session event limit reached', error, limit: limitMember('maxEventsPerSession', limits) }
}

/**
 * Pushes the body through the decoder chunk by chunk. Never rejects: a broken upload, a limit or a
 * fault anywhere below is a value. An interrupted body is not flushed, so its torn last frame is
 * not scored as a bad event. Decoded events are scored one at a time in short slices of the event
 * loop (turn-slicer.ts), so a big chunk or a big JSON body never holds the loop for long.
 */
async function feedBody(
  body: ReadableStream<Uint8Array> | null,
  format: EventFormat,
  session: HostedSession,
  summary: UploadSummary,
  limits: Limits,
  metrics?: HostMetrics,
  turns?: TurnSlicerOptions,
): Promise<UploadOutcome> {
  const slicer = createTurnSlicer(turns)
  try {
    return await feedSliced(body, format, session, summary, limits, slicer, metrics)
  } finally {
    slicer.end()
    turns?.report?.(slicer.longestMs)
  }
}

async function feedSliced(
  body: ReadableStream<Uint8Array> | null,
  format: EventFormat,
  session: HostedSession,
  summary: UploadSummary,
  limits: Limits,
  slicer: TurnSlicer,
  metrics?: HostMetrics,
): Promise<UploadOutcome> {
  let stopped: UploadFailure | undefined
  // Each frame takes one of the session's event slots; at the limit, the upload stops.
  const admit = (): boolean => {
    if (stopped) return false
    if (session.recordedEvents < limits.maxEventsPerSession) return true
    stopped = sessionFull(session, limits)
    return false
  }
  // Decoded outputs wait here and are handled one per unit of work, in order.
  const queue: Array<() => void> = []
  const drain = async (): Promise<void> => {
    for (let k = 0; k < queue.length; k++) {
      queue[k]!()
      const pause = slicer.check()
      if (pause) await pause
    }
    queue.length = 0
  }
  const onEvent = (item: DecodedEvent): void => {
        if (!admit()) return
        if (session.isNewInvocation(item.event.invocation_id) && session.invocationCount >= limits.maxInvocationsPerSession) {
          const name = limitName('maxInvocationsPerSession', limits)
          const message = `event opens invocation '${item.event.invocation_id ?? ''}', past the limit of ${limits.maxInvocationsPerSession} invocations per session (${name})`
          return reject({ index: item.index, message, path: '$.invocationId' }, 'invocation_limit')
        }
        try {
          session.push(item)
          summary.accepted += 1
          metrics?.events.ingested('upload', 1)
        } catch (e) {
          // An engine fault on one event must not take the upload (or the server) down.
          reject({ index: item.index, message: `internal error while scoring: ${(e as Error).message}` }, 'scoring_error')
        }
  }
  const decoder = createEventDecoder(
    format,
    {
      onEvent: (item: DecodedEvent) => void queue.push(() => onEvent(item)),
      onIssue: (issue: IngestIssue) =>
        void queue.push(() => {
          if (admit()) reject({ index: issue.index, message: issue.message, ...(issue.path ? { path: issue.path } : {}) }, 'invalid_event')
        }),
    },
    limits,
  )
  function reject(rejected: RejectedEvent, reason: EventRejectReason): void {
    summary.rejected.push(rejected)
    metrics?.events.rejected('upload', reason, 1)
    try {
      session.reject(rejected)
    } catch (e) {
      console.error(`evalstream: session '${session.id}' could not record a rejected event:`, e)
    }
  }
  const internal = (e: unknown): UploadFailure => ({ ok: false, status: 500, title: 'Internal error', error: `internal error while decoding: ${(e as Error).message}` })
  if (body) {
    const reader = body.getReader()
    const meter = byteMeter(limits.maxRequestBytes)
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>
      try {
        slicer.end()
        chunk = await reader.read()
        slicer.begin()
      } catch (e) {
        return { ok: false, status: 400, title: 'Body could not be read', error: `the upload broke off: ${(e as Error).message}` }
      }
      if (chunk.done) break
      meter.add(chunk.value)
      if (meter.over) stopped = tooLarge(limits, `the body grew past ${limits.maxRequestBytes} bytes`)
      else {
        // A big chunk (an in-process Request, a Worker body) is decoded a piece at a time.
        for (let at = 0; at < chunk.value.length && !stopped; at += DECODE_PIECE_BYTES) {
          try {
            decoder.push(chunk.value.subarray(at, at + DECODE_PIECE_BYTES))
          } catch (e) {
            stopped = internal(e)
          }
          await drain()
        }
      }
      if (stopped) {
        await reader.cancel().catch(() => {})
        return stopped
      }
    }
  }
  try {
    for (const _ of decoder.endInSteps()) {
      await drain()
      const pause = slicer.check()
      if (pause) await pause
    }
  } catch (e) {
    return internal(e)
  }
  await drain()
  return stopped ?? { ok: true }
}

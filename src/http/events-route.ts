/**
 * `POST /v1/sessions/{id}/events`: one event, a JSON array, NDJSON or a captured /run_sse stream.
 * The body is decoded and scored while it uploads: each chunk goes to the decoder as it arrives,
 * so results exist before the upload ends. With `Accept: text/event-stream` they stream back in
 * the same response (full duplex); otherwise the answer is 202 with what was accepted and rejected.
 * The body goes to the session through its feed (src/session/feed.ts), which holds every
 * per-session limit; this route adds the request's own: a body past the request byte limit stops
 * being read (413). A session at its event limit takes no more (422).
 */
import type * as z from 'zod'
import type { Context } from 'hono'
import { type Failure, failure, type Problem } from '../engine/problem.ts'
import { DEFAULT_LIMITS, type EventFormat, formatFromContentType, limitMember, limitName, type Limits } from '../ingest/index.ts'
import type { PrometheusMetrics } from '../monitor/prometheus.ts'
import { feedSession, sessionFull } from '../session/feed.ts'
import type { UploadSummary as UploadSummarySchema, UploadSummaryEvent } from './openapi/schemas.ts'
import { problem } from './problem.ts'
import { byteMeter, declaredTooLarge, dropRefusedBody } from './read-body.ts'
import { type BodyReader, bodyReader } from './node-body.ts'
import { streamResults } from './results-stream.ts'
import type { HostedSession } from '../session/session.ts'
import { createTurnSlicer, type TurnSlicerOptions } from '../ingest/turn-slicer.ts'

/** Bytes handed to the decoder at once: decoding them is well under one turn slice. */
const DECODE_PIECE_BYTES = 16 * 1024

/** The upload's answer (202) and, with `error` and `limit` when it stopped early, its `upload.summary` frame. */
export type UploadSummary = z.infer<typeof UploadSummarySchema>
type UploadSummaryFrame = z.infer<typeof UploadSummaryEvent>

/** @example app.post('/:id/events', (c) => eventsRoute(c, session, deps.limits)) */
export async function eventsRoute(
  c: Context,
  session: HostedSession,
  limits: Limits = DEFAULT_LIMITS,
  turns?: TurnSlicerOptions,
): Promise<Response> {
  const metrics = c.get('evalstreamMetrics')
  // Counted under the label of the refusal's code (src/engine/failure-codes.ts).
  const refuse = (refused: Problem) => metrics?.events.refused(refused.code)
  // Refused before its body is read: the body is still dropped, so the client reads the answer.
  const refuseUnread = async ({ problem: refused }: Failure) => {
    refuse(refused)
    await dropRefusedBody(c.req.raw)
    return problem(c, refused)
  }
  const contentType = c.req.header('content-type')
  const format = formatFromContentType(contentType ?? 'application/json')
  if (!format) {
    return await refuseUnread(failure(
      'unsupported_format',
      'Unsupported event format',
      `Content-Type '${contentType}' is not one of application/json, application/x-ndjson, text/event-stream`,
    ))
  }
  if (session.ended) {
    return await refuseUnread(failure('session_ended', 'Session has ended', `session '${session.id}' has ended; it takes no more events`))
  }
  const declared = declaredTooLarge(c.req.raw.headers, limits.maxRequestBytes)
  if (declared !== undefined) return await refuseUnread(tooLarge(limits, `the body declares ${declared} bytes`))
  if (session.recordedEvents >= limits.maxEventsPerSession) return await refuseUnread(sessionFull(session, limits))

  const summary: UploadSummary = { accepted: 0, rejected: [] }
  const upload = feedBody(bodyReader(c), format, session, summary, limits, metrics, turns).then((outcome) => {
    if (!outcome.ok) refuse(outcome.problem)
    return outcome
  })
  if ((c.req.header('accept') ?? '').includes('text/event-stream')) {
    return streamResults(c, session, {
      after: session.log.lastSeq(),
      until: upload,
      finish: async (stream) => {
        const outcome = await upload
        const data = outcome.ok
          ? summary
          : { ...summary, error: outcome.problem.detail, ...(outcome.problem.limit ? { limit: outcome.problem.limit } : {}) }
        await stream.writeSSE({ event: 'upload.summary', data: JSON.stringify(data) })
      },
    })
  }
  const outcome = await upload
  if (outcome.ok) return c.json(summary, 202)
  return problem(c, outcome.problem, summary)
}

function tooLarge(limits: Limits, what: string): Failure {
  const name = limitName('maxRequestBytes', limits)
  const detail = `${what}: the limit is ${limits.maxRequestBytes} bytes per request (${name}); the rest was not read`
  return failure('request_too_large', 'Request body too large', detail, { limit: limitMember('maxRequestBytes', limits) })
}

/**
 * Pushes the body through the session's feed chunk by chunk, under the request byte limit. Never
 * rejects: a broken upload, a limit or a fault anywhere below is a value. An interrupted body is not
 * flushed, so its torn last frame is not scored as a bad event. Decoded events are scored one at a
 * time in short slices of the event loop (turn-slicer.ts), so a big chunk or a big JSON body never
 * holds the loop for long.
 */
async function feedBody(
  reader: BodyReader | null,
  format: EventFormat,
  session: HostedSession,
  summary: UploadSummary,
  limits: Limits,
  metrics?: PrometheusMetrics,
  turns?: TurnSlicerOptions,
): Promise<{ ok: true } | Failure> {
  const slicer = createTurnSlicer(turns)
  // Decoded frames wait here and are scored one per unit of work, in order, between pauses.
  const queue: Array<() => void> = []
  const drain = async (): Promise<void> => {
    for (let k = 0; k < queue.length; k++) {
      queue[k]!()
      const pause = slicer.check()
      if (pause) await pause
    }
    queue.length = 0
  }
  const feed = feedSession(session, format, limits, {
    accepted: () => {
      summary.accepted += 1
      metrics?.events.ingested('upload', 1)
    },
    rejected: (reason, rejected) => {
      summary.rejected.push(rejected)
      metrics?.events.rejected('upload', reason, 1)
    },
    defer: (work) => void queue.push(work),
  })
  try {
    if (reader) {
      const meter = byteMeter(limits.maxRequestBytes)
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>
        try {
          slicer.end()
          chunk = await reader.read()
          slicer.begin()
        } catch (e) {
          return failure('broken_body', 'Body could not be read', `the upload broke off: ${(e as Error).message}`)
        }
        if (chunk.done) break
        meter.add(chunk.value)
        let stopped: Failure | undefined = meter.over ? tooLarge(limits, `the body grew past ${limits.maxRequestBytes} bytes`) : undefined
        // A big chunk (an in-process Request, a Worker body) is decoded a piece at a time.
        for (let at = 0; !stopped && at < chunk.value.length; at += DECODE_PIECE_BYTES) {
          feed.push(chunk.value.subarray(at, at + DECODE_PIECE_BYTES))
          await drain()
          stopped = feed.stopped
        }
        if (stopped) {
          await dropRefusedBody(reader)
          return stopped
        }
      }
    }
    for (const _ of feed.endInSteps()) {
      await drain()
      const pause = slicer.check()
      if (pause) await pause
    }
    await drain()
    return feed.stopped ?? { ok: true }
  } finally {
    slicer.end()
    turns?.report?.(slicer.longestMs)
  }
}

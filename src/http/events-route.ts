/**
 * `POST /v1/sessions/{id}/events`: one event, a JSON array, NDJSON or a captured /run_sse stream.
 * The body is decoded and scored while it uploads: each chunk goes to the decoder as it arrives,
 * so results exist before the upload ends. With `Accept: text/event-stream` they stream back in
 * the same response (full duplex); otherwise the answer is 202 with what was accepted and rejected.
 */
import type { Context } from 'hono'
import type { RejectedEvent } from '../engine/types.ts'
import { createEventDecoder, formatFromContentType, type DecodedEvent, type EventFormat, type IngestIssue } from '../ingest/index.ts'
import { problem } from './problem.ts'
import { streamResults } from './results-stream.ts'
import type { HostedSession } from '../host/session.ts'

export type UploadSummary = { accepted: number; rejected: RejectedEvent[] }

/** @example app.post('/:id/events', (c) => eventsRoute(c, session)) */
export async function eventsRoute(c: Context, session: HostedSession): Promise<Response> {
  const contentType = c.req.header('content-type')
  const format = formatFromContentType(contentType ?? 'application/json')
  if (!format)
    return problem(
      c,
      415,
      'Unsupported event format',
      `Content-Type '${contentType}' is not one of application/json, application/x-ndjson, text/event-stream`,
    )
  if (session.ended) return problem(c, 409, 'Session has ended', `session '${session.id}' has ended; it takes no more events`)

  const summary: UploadSummary = { accepted: 0, rejected: [] }
  const upload = feedBody(c.req.raw.body, format, session, summary)
  if ((c.req.header('accept') ?? '').includes('text/event-stream')) {
    return streamResults(c, session, {
      after: session.log.lastSeq(),
      until: upload,
      finish: async (stream) => {
        const outcome = await upload
        const data = outcome.ok ? summary : { ...summary, error: outcome.error }
        await stream.writeSSE({ event: 'upload.summary', data: JSON.stringify(data) })
      },
    })
  }
  const outcome = await upload
  if (!outcome.ok) return problem(c, 400, 'Body could not be read', outcome.error)
  return c.json(summary, 202)
}

/**
 * Pushes the body through the decoder chunk by chunk. Never rejects: a broken upload is a value.
 * An interrupted body is not flushed, so its torn last frame is not scored as a bad event.
 */
async function feedBody(
  body: ReadableStream<Uint8Array> | null,
  format: EventFormat,
  session: HostedSession,
  summary: UploadSummary,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const decoder = createEventDecoder(format, {
    onEvent: (item: DecodedEvent) => {
      try {
        session.push(item)
        summary.accepted += 1
      } catch (e) {
        // An engine fault on one event must not take the upload (or the server) down.
        reject({ index: item.index, message: `internal error while scoring: ${(e as Error).message}` })
      }
    },
    onIssue: (issue: IngestIssue) =>
      reject({ index: issue.index, message: issue.message, ...(issue.path ? { path: issue.path } : {}) }),
  })
  function reject(rejected: RejectedEvent): void {
    summary.rejected.push(rejected)
    session.reject(rejected)
  }
  if (!body) {
    decoder.end()
    return { ok: true }
  }
  const reader = body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      decoder.push(value)
    }
  } catch (e) {
    return { ok: false, error: `the upload broke off: ${(e as Error).message}` }
  }
  decoder.end()
  return { ok: true }
}

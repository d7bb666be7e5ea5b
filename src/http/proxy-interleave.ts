/**
 * The proxy's scoring step, as a TransformStream of whole SSE frames: each agent frame passes on
 * (an agent frame named `evalstream` renamed, so clients can trust ours), is scored, and the
 * results it caused follow it as `event: evalstream` frames. Results that come later (judges)
 * go out as soon as they exist, always between whole frames. At the end, the invocation is
 * completed and its last results sent; if the agent failed, the failure is first recorded in the
 * session as an `error` result, which the client gets as a frame too.
 */
import type { ResultEvent } from '../engine/types.ts'
import type { HostedSession } from '../host/session.ts'
import { createEventDecoder, decodeFrameValue, isIngestIssue } from '../ingest/index.ts'
import type { HostMetrics } from '../host/metrics.ts'
import { formatSseMessage } from './sse-frames.ts'

/** The event name of our frames in a proxied stream. */
export const OUR_EVENT = 'evalstream'

/** What an agent frame named `evalstream` is renamed to: only evalstream writes `evalstream`. */
export const RENAMED_AGENT_EVENT = 'agent-evalstream'

const AGENT_OUR_EVENT = /(^|\r\n|\n|\r)event: ?evalstream(?=\r\n|\n|\r|$)/g

/**
 * @example renameAgentEvalstream('event: evalstream\ndata: {}\n\n') // 'event: agent-evalstream\ndata: {}\n\n'
 */
export function renameAgentEvalstream(frame: string): string {
  return frame.includes(OUR_EVENT) ? frame.replace(AGENT_OUR_EVENT, `$1event: ${RENAMED_AGENT_EVENT}`) : frame
}

/** Our frame for one result: `event: evalstream`, data `{seq, type, data}`, no id (the agent's stream owns ids). */
export function ourFrame(event: ResultEvent): string {
  return formatSseMessage({ event: OUR_EVENT, data: JSON.stringify({ seq: event.seq, type: event.type, data: event.data }) })
}

export type InterleaveOptions = {
  /** The request's newMessage: scored as the user's turn, since /run_sse events never carry it. */
  newMessage: unknown
  /** Why the agent's stream ended early, once it has ended (undefined: it ended normally). */
  failure(): string | undefined
  /** Counts the events scored and rejected (source `proxy`), when the host keeps metrics. */
  metrics?: HostMetrics
}

/**
 * @example
 * const run = interleaveResults(session, { newMessage, failure: () => agent.failure() })
 * frames.pipeThrough(run.transform) // and call run.abandon() when the client goes away
 */
export function interleaveResults(
  session: HostedSession,
  options: InterleaveOptions,
): { transform: TransformStream<string, string>; abandon(): void } {
  let pending: ResultEvent[] = []
  let out: TransformStreamDefaultController<string> | undefined
  let inFrame = false
  let scheduled = false
  let finished = false
  let seen = 0
  let userSent = options.newMessage === undefined
  const metrics = options.metrics

  /** Every queued result as one chunk (one write), unless the stream is already gone. */
  const sendPending = () => {
    scheduled = false
    if (!out || finished || pending.length === 0) return
    const text = pending.map(ourFrame).join('')
    pending = []
    try {
      out.enqueue(text)
    } catch {
      // The client went away between two frames: the results stay in the session's log.
    }
  }
  const unsubscribe = session.log.subscribe((event) => {
    pending.push(event)
    // Between agent frames (a judge answered): send on the next microtask, so a burst is one write.
    if (!inFrame && !scheduled) {
      scheduled = true
      queueMicrotask(sendPending)
    }
  })
  const decoder = createEventDecoder('sse', {
    onEvent(item) {
      seen += 1
      if (!userSent && item.event.invocation_id && item.event.author !== 'user') {
        const user = decodeFrameValue({ invocationId: item.event.invocation_id, author: 'user', content: options.newMessage }, item.index)
        if (!isIngestIssue(user)) {
          session.push(user)
          metrics?.events.ingested('proxy', 1)
        }
      }
      userSent = true
      try {
        // A refusal (a byte budget) is recorded by the session as an `error` result naming the limit.
        if (session.push(item)) metrics?.events.rejected('proxy', 'over_budget', 1)
        else metrics?.events.ingested('proxy', 1)
      } catch (e) {
        // An engine fault on one event must not cut the agent's stream off from the client.
        session.reject({ index: item.index, message: `internal error while scoring: ${(e as Error).message}` })
        metrics?.events.rejected('proxy', 'scoring_error', 1)
      }
    },
    onIssue(issue) {
      seen += 1
      session.reject({ index: issue.index, message: issue.message, ...(issue.path ? { path: issue.path } : {}) })
      metrics?.events.rejected('proxy', 'invalid_event', 1)
    },
  })
  /** The agent's stream is over: complete the invocation; an early end is an `error` result first. */
  const finish = (failure: string | undefined) => {
    if (finished) return
    decoder.end()
    if (failure) {
      session.reject({ index: seen, message: `${failure}; event ${seen} and later never arrived` })
      metrics?.events.rejected('proxy', 'agent_failure', 1)
    }
    session.completeInvocation()
    sendPending()
    finished = true
    unsubscribe()
  }

  const transform = new TransformStream<string, string>({
    start(controller) {
      out = controller
    },
    transform(frame, controller) {
      const passed = renameAgentEvalstream(frame)
      controller.enqueue(passed)
      inFrame = true
      try {
        decoder.push(passed)
      } finally {
        inFrame = false
      }
      sendPending()
    },
    flush() {
      finish(options.failure())
    },
  })
  return {
    transform,
    // The client left: score what the invocation got so far; nobody is there to read the results.
    abandon: () => finish(undefined),
  }
}

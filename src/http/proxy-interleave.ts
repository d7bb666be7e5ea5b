/**
 * The proxy's scoring step, as a TransformStream of whole SSE frames: each agent frame passes on
 * (an agent frame named `evalstream` renamed, so clients can trust ours), is scored, and the
 * results it caused follow it as `event: evalstream` frames. Results that come later (judges)
 * go out as soon as they exist, always between whole frames. At the end, the invocation is
 * completed and its last results sent; if the agent failed, the failure is first recorded in the
 * session as an `error` result, which the client gets as a frame too. The client's stream then
 * stays open until the judges working for the session have answered (their verdicts go out as
 * they land), at most `verdictWaitMs` (EVALSTREAM_PROXY_VERDICT_WAIT_MS); past that it closes with
 * a comment saying so, and the verdicts still reach the session's result log.
 */
import type { ResultEvent } from '../engine/types.ts'
import type { HostedSession } from '../host/session.ts'
import { createEventDecoder, decodeFrameValue, type FrameLimits, isIngestIssue } from '../ingest/index.ts'
import type { HostMetrics } from '../host/metrics.ts'
import { formatSseMessage, type OversizedFrame, oversizedNote } from './sse-frames.ts'

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
  /** The per-event limits frames are decoded under (EVALSTREAM_MAX_EVENT_BYTES names the note for a frame over it). */
  limits: FrameLimits
  /** How long the stream stays open after the agent's end for pending verdicts, in ms (0: not at all). */
  verdictWaitMs: number
  /** Resolves after `ms` or once `signal` aborts (default: a timer); tests pass a manual clock. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

/** setTimeout takes at most 2^31-1 ms; a longer wait would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1

function timerSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.min(ms, MAX_TIMER_MS))
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
  })
}

/**
 * @example
 * const run = interleaveResults(session, { newMessage, failure: () => agent.failure() })
 * frames.pipeThrough(run.transform) // and call run.abandon() when the client goes away
 */
export function interleaveResults(
  session: HostedSession,
  options: InterleaveOptions,
): { transform: TransformStream<string | OversizedFrame, string>; abandon(): void } {
  let pending: ResultEvent[] = []
  let out: TransformStreamDefaultController<string> | undefined
  let inFrame = false
  let scheduled = false
  let completed = false
  let finished = false
  const stopWaiting = new AbortController()
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
        session.push(item)
        metrics?.events.ingested('proxy', 1)
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
  }, options.limits)
  /** The agent's stream is over: complete the invocation; an early end is an `error` result first. */
  const complete = (failure: string | undefined) => {
    if (completed) return
    completed = true
    decoder.end()
    if (failure) {
      session.reject({ index: seen, message: `${failure}; event ${seen} and later never arrived` })
      metrics?.events.rejected('proxy', 'agent_failure', 1)
    }
    session.completeInvocation()
    sendPending()
  }
  /** Pending verdicts out, or the wait over: the last results go out and nothing more is sent. */
  const close = () => {
    if (finished) return
    sendPending()
    finished = true
    unsubscribe()
    stopWaiting.abort()
  }
  const awaitVerdicts = async () => {
    if (options.verdictWaitMs <= 0 || finished) return
    let settled = false
    const judged = session.judgesSettled().then(() => void (settled = true))
    await Promise.race([judged, (options.sleep ?? timerSleep)(options.verdictWaitMs, stopWaiting.signal)])
    sendPending()
    if (!settled && !finished && out) {
      const note = `: evalstream stopped waiting for judged verdicts after ${options.verdictWaitMs} ms (EVALSTREAM_PROXY_VERDICT_WAIT_MS); they go to the session's results\n\n`
      try {
        out.enqueue(note)
      } catch {
        // The client is gone.
      }
    }
  }

  const transform = new TransformStream<string | OversizedFrame, string>({
    start(controller) {
      out = controller
    },
    transform(frame, controller) {
      inFrame = true
      try {
        if (typeof frame === 'string') {
          const passed = renameAgentEvalstream(frame)
          controller.enqueue(passed)
          decoder.push(passed)
        } else {
          // Never kept, so never relayed or scored: the client gets a note, the session a too_large error.
          controller.enqueue(oversizedNote(frame, options.limits.maxEventBytes))
          decoder.oversized()
        }
      } finally {
        inFrame = false
      }
      sendPending()
    },
    async flush() {
      complete(options.failure())
      await awaitVerdicts()
      close()
    },
  })
  return {
    transform,
    // The client left: score what the invocation got so far; nobody is there to read the results.
    abandon: () => {
      complete(undefined)
      close()
    },
  }
}

/**
 * The proxy's scoring step, as a TransformStream of whole SSE frames: each agent frame passes on
 * (an agent frame named `evalstream` renamed, so clients can trust ours) and is scored. Without
 * `inline` that is all the client gets: the stream ends with the agent's, and the results reach
 * only the session's log (its /results). With `inline`, the results each frame caused follow it
 * as `event: evalstream` frames, and the rest of this comment applies. Results that come later (judges)
 * go out as soon as they exist, always between whole frames. At the end, the invocation is
 * completed and its last results sent; if the agent failed, the failure is first recorded in the
 * session as an `error` result, which the client gets as a frame too. Events reach the session
 * through its feed (src/session/feed.ts), under every per-session limit; a session at its event
 * limit takes no more, and the client gets one `error` frame (kind `session_stopped`) saying so.
 * The client's stream then stays open until the judges working for the session have answered
 * (their verdicts go out as they land), at most `verdictWaitMs` (EVALSTREAM_PROXY_VERDICT_WAIT_MS);
 * past that it closes with a comment saying so, and the verdicts still reach the session's log.
 */
import type { ResultEvent } from '../../engine/types.ts'
import type { HostedSession } from '../../session/session.ts'
import { decodeFrameValue, isIngestIssue, type Limits } from '../../ingest/index.ts'
import { MAX_TIMER_MS } from '../../ingest/timer-ms.ts'
import type { PrometheusMetrics } from '../../monitor/prometheus.ts'
import { feedSession } from '../../session/feed.ts'
import { formatSseMessage, type OversizedFrame, oversizedNote } from '../sse-frames.ts'

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
  /** Whether the client asked for result frames in its stream (results-mode.ts); false: the agent's frames only. */
  inline: boolean
  /** The request's newMessage: scored as the user's turn, since /run_sse events never carry it. */
  newMessage: unknown
  /** Why the agent's stream ended early, once it has ended (undefined: it ended normally). */
  failure(): string | undefined
  /** Counts the events scored and rejected (source `proxy`), when the host keeps metrics. */
  metrics?: PrometheusMetrics
  /** The per-event and per-session limits the session's feed holds (EVALSTREAM_MAX_*). */
  limits: Limits
  /** How long the stream stays open after the agent's end for pending verdicts, in ms (0: not at all). */
  verdictWaitMs: number
  /** Resolves after `ms` or once `signal` aborts (default: a timer); tests pass a manual clock. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

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
  const unsubscribe = !options.inline ? () => {} : session.log.subscribe((event) => {
    // A session's log holds only the engine's result bodies, each a ResultEvent once numbered.
    pending.push(event as ResultEvent)
    // Between agent frames (a judge answered): send on the next microtask, so a burst is one write.
    if (!inFrame && !scheduled) {
      scheduled = true
      queueMicrotask(sendPending)
    }
  })
  let stopSent = false
  const feed = feedSession(session, 'sse', options.limits, {
    accepted: () => metrics?.events.ingested('proxy', 1),
    rejected: (reason) => metrics?.events.rejected('proxy', reason, 1),
    // /run_sse events never carry the user's turn: the request's newMessage goes in before the agent's first event.
    before: (item) => {
      if (!userSent && item.event.invocation_id && item.event.author !== 'user') {
        const user = decodeFrameValue({ invocationId: item.event.invocation_id, author: 'user', content: options.newMessage }, item.index)
        if (!isIngestIssue(user)) feed.pushEvent(user)
      }
      userSent = true
    },
  })
  /** Once, when the session stops taking events: the client hears why; the agent's frames still pass. */
  const sendStopped = () => {
    const stopped = feed.stopped
    if (!options.inline || !stopped || stopSent || !out) return
    stopSent = true
    const { detail, limit } = stopped.problem
    try {
      out.enqueue(
        formatSseMessage({
          event: OUR_EVENT,
          data: JSON.stringify({ type: 'error', data: { kind: 'session_stopped', message: detail, ...(limit ? { limit } : {}) } }),
        }),
      )
    } catch {
      // The client went away.
    }
  }
  /** The agent's stream is over: complete the invocation; an early end is an `error` result first. */
  const complete = (failure: string | undefined) => {
    if (completed) return
    completed = true
    feed.end()
    if (failure) feed.reject({ index: feed.frames, message: `${failure}; event ${feed.frames} and later never arrived` }, 'agent_failure')
    sendStopped()
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
    if (!options.inline || options.verdictWaitMs <= 0 || finished) return
    let settled = false
    const judged = session.judgesSettled().then(() => void (settled = true))
    await Promise.race([judged, (options.sleep ?? timerSleep)(options.verdictWaitMs, stopWaiting.signal)])
    sendPending()
    if (!settled && !finished && out) {
      const note =
        `: evalstream stopped waiting for judged verdicts after ${options.verdictWaitMs} ms (EVALSTREAM_PROXY_VERDICT_WAIT_MS); they go to the session's results\n\n`
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
          feed.push(passed)
        } else {
          // Never kept, so never relayed or scored: the client gets a note, the session a too_large error.
          controller.enqueue(oversizedNote(frame, options.limits.maxEventBytes))
          feed.oversized()
        }
      } finally {
        inFrame = false
      }
      sendPending()
      sendStopped()
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

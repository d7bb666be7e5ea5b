/**
 * The one path from bytes to a session: every way events reach a session (the events route, the
 * proxy, eval set runs, `evalstream eval`) decodes through here, so every per-session limit holds
 * for every session whatever brought its events (docs/limits.md):
 *
 * - bytes and nesting depth of one event, string length (the decoder, under the given limits):
 *   that event is rejected with its index, its neighbours kept;
 * - invocations per session (EVALSTREAM_MAX_INVOCATIONS_PER_SESSION): the event opening one more is
 *   rejected, the others kept;
 * - events per session (EVALSTREAM_MAX_EVENTS_PER_SESSION, accepted and rejected together): the
 *   feed stops, and says so as a problem value naming the limit; the session keeps what it has.
 *
 * - the session's byte budget (EVALSTREAM_MAX_SESSION_BYTES) or the process's
 *   (EVALSTREAM_MAX_PROCESS_BYTES): the session records the refused event as rejected, and the feed
 *   stops with the budget's problem (413, or 503 with Retry-After).
 *
 * - the trace mark (`evalstream_trace`, src/otlp/trace-mark.ts) on an event decoded from a body: only the
 *   OTLP monitor marks events (it hands them over already decoded, through `pushEvent`), so a
 *   client's or an agent's event carrying one is rejected with its index, naming the key.
 *
 * An engine fault on one event rejects that event; nothing here throws at the caller.
 */
import { type Failure, failure, type Problem } from '../engine/problem.ts'
import type { IngestedEvent, RejectedEvent } from '../engine/types.ts'
import {
  createEventDecoder,
  type DecodedEvent,
  type EventFormat,
  type IngestIssue,
  limitMember,
  limitName,
  type Limits,
} from '../ingest/index.ts'
import { TRACE_MARK_KEY } from '../otlp/trace-mark.ts'

/** Why one event was rejected (its neighbours kept): the `reason` label of evalstream_events_rejected_total. */
export type EventRejectReason = 'invalid_event' | 'invocation_limit' | 'scoring_error' | 'agent_failure' | 'over_budget'

/** What a feed pushes into: a hosted session, or a bare engine counted by `countedTarget`. */
export type FeedTarget = {
  /** Takes the event, or refuses it over a byte budget (having recorded the refusal itself). */
  push(item: IngestedEvent): Problem | undefined | void
  reject(rejected: RejectedEvent): void
  /** Events recorded so far, accepted and rejected. */
  readonly recordedEvents: number
  isNewInvocation(invocationId: string | null | undefined): boolean
  readonly invocationCount: number
}

export type FeedOptions = {
  /** Called once per event taken into the session (for counters). */
  accepted?(): void
  /** Called once per event rejected, with why (for counters). */
  rejected?(reason: EventRejectReason, rejected: RejectedEvent): void
  /** Called before each decoded event is fed (the proxy puts the user's turn first). */
  before?(item: DecodedEvent): void
  /** Called with each frame that did not decode, before it is rejected (the CLI's and runner's warnings). */
  issue?(issue: IngestIssue): void
  /** Added to every frame's index: a session fed by several bodies (a run's turns) numbers on. */
  firstIndex?: number
  /**
   * Where each decoded frame's work (scoring it, or rejecting it) waits to be done, one unit each:
   * the events route queues it and does it in short slices of the event loop. Default: at once.
   */
  defer?(work: () => void): void
}

export type SessionFeed = {
  /** The next piece of the body; a no-op once the feed has stopped. */
  push(chunk: string | Uint8Array): void
  /** One already decoded event, under the same limits (the proxy's user turn). */
  pushEvent(item: DecodedEvent): void
  /** Records an event that never arrived or could not be read (an agent that broke off). */
  reject(rejected: RejectedEvent, reason: EventRejectReason): void
  /** A frame over the event byte limit was skipped before it reached the feed: recorded as a too_large error. */
  oversized(): void
  /** The body is complete: flushes what the decoder holds, unless the feed has stopped. */
  end(): void
  /** end(), in steps (a big JSON body is decoded element by element between pauses). */
  endInSteps(): Generator<void, void>
  /** Why the feed stopped taking events (the session's event limit, or a decoder fault), if it did. */
  readonly stopped: Failure | undefined
  /** Frames seen, accepted and rejected (the index the next one gets). */
  readonly frames: number
}

/** Why a client's event carrying the trace mark is rejected. */
export const FORGED_MARK = `'${TRACE_MARK_KEY}' is set only by evalstream's OTLP monitor on the events it maps from ` +
  `a trace; an event sent by a client or an agent may not carry it`

/**
 * @example
 * const feed = feedSession(session, 'ndjson', limits)
 * feed.push(bytes); feed.end()
 * if (feed.stopped) return problem(c, feed.stopped.problem)
 */
export function feedSession(target: FeedTarget, format: EventFormat, limits: Limits, options: FeedOptions = {}): SessionFeed {
  let stopped: Failure | undefined
  let frames = 0
  const offset = options.firstIndex ?? 0
  const admit = (): boolean => {
    if (stopped) return false
    if (target.recordedEvents < limits.maxEventsPerSession) return true
    stopped = sessionFull(target, limits)
    return false
  }
  const reject = (rejected: RejectedEvent, reason: EventRejectReason): void => {
    options.rejected?.(reason, rejected)
    try {
      target.reject(rejected)
    } catch (e) {
      console.error(`evalstream: a rejected event could not be recorded:`, e)
    }
  }
  const take = (item: DecodedEvent): void => {
    if (!admit()) return
    if (target.isNewInvocation(item.event.invocation_id) && target.invocationCount >= limits.maxInvocationsPerSession) {
      const name = limitName('maxInvocationsPerSession', limits)
      const message = `event opens invocation '${
        item.event.invocation_id ?? ''
      }', past the limit of ${limits.maxInvocationsPerSession} invocations per session (${name})`
      return reject({ index: item.index, message, path: '$.invocationId' }, 'invocation_limit')
    }
    try {
      const refused = target.push(item)
      if (refused) {
        // The session recorded the refusal as a rejected event; the feed stops with it.
        options.rejected?.('over_budget', { index: item.index, message: refused.detail })
        stopped = { ok: false, problem: refused }
        return
      }
      options.accepted?.()
    } catch (e) {
      // An engine fault on one event must not take the feed (or the server) down.
      reject({ index: item.index, message: `internal error while scoring: ${(e as Error).message}` }, 'scoring_error')
    }
  }
  const run = options.defer ?? ((work: () => void) => work())
  const decoder = createEventDecoder(
    format,
    {
      onEvent: (decoded: DecodedEvent) => {
        frames += 1
        run(() => {
          if (stopped) return
          const item = offset ? { ...decoded, index: decoded.index + offset } : decoded
          options.before?.(item)
          if (TRACE_MARK_KEY in item.event) {
            if (admit()) reject({ index: item.index, message: FORGED_MARK, path: `$.${TRACE_MARK_KEY}` }, 'invalid_event')
            return
          }
          take(item)
        })
      },
      onIssue: (raw: IngestIssue) => {
        frames += 1
        run(() => {
          const issue = offset ? { ...raw, index: raw.index + offset } : raw
          options.issue?.(issue)
          if (admit()) reject({ index: issue.index, message: issue.message, ...(issue.path ? { path: issue.path } : {}) }, 'invalid_event')
        })
      },
    },
    limits,
  )
  const fault = (e: unknown): Failure => failure('internal', 'Internal error', `internal error while decoding: ${(e as Error).message}`)
  const guarded = (step: () => void) => {
    if (stopped) return
    try {
      step()
    } catch (e) {
      stopped = fault(e)
    }
  }
  return {
    push: (chunk) => guarded(() => decoder.push(chunk)),
    pushEvent: take,
    reject: (rejected, reason) => {
      if (admit()) reject(rejected, reason)
    },
    oversized: () => guarded(() => decoder.oversized()),
    end: () => guarded(() => decoder.end()),
    *endInSteps() {
      if (stopped) return
      try {
        yield* decoder.endInSteps()
      } catch (e) {
        stopped = fault(e)
      }
    },
    get stopped() {
      return stopped
    },
    get frames() {
      return frames
    },
  }
}

/**
 * @example sessionFull(session, limits).problem.limit // { name: 'EVALSTREAM_MAX_EVENTS_PER_SESSION', value: 100000 }
 */
export function sessionFull(target: Pick<FeedTarget, 'recordedEvents'> & { id?: string }, limits: Limits): Failure {
  const name = limitName('maxEventsPerSession', limits)
  const who = target.id === undefined ? 'the session' : `session '${target.id}'`
  const detail = `${who} holds ${target.recordedEvents} events, the limit (${name}); it takes no more`
  return failure('session_full', 'Session event limit reached', detail, { limit: limitMember('maxEventsPerSession', limits) })
}

/**
 * A bare engine (the CLI, eval set runs) as a feed target, counting what it records as a hosted
 * session does.
 * @example feedSession(countedTarget(engine), 'sse', DEFAULT_LIMITS)
 */
export function countedTarget(engine: Pick<FeedTarget, 'push' | 'reject'>): FeedTarget {
  let recorded = 0
  const invocations = new Set<string>()
  return {
    push(item) {
      recorded += 1
      invocations.add(item.event.invocation_id ?? '')
      engine.push(item)
    },
    reject(rejected) {
      recorded += 1
      engine.reject(rejected)
    },
    get recordedEvents() {
      return recorded
    },
    isNewInvocation: (id) => !invocations.has(id ?? ''),
    get invocationCount() {
      return invocations.size
    },
  }
}

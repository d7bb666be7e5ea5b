/**
 * A session as the HTTP layer hosts it: the engine, its result log, and a journal of everything that
 * was fed to the engine. The engine is deterministic given its inputs and its judge answers, so a
 * host that persisted the journal (and cached the judge answers) rebuilds an evicted session by
 * replaying it through a fresh engine. Results the log already holds are recognised by their
 * logical key and not appended again: judged results may come back in another order on replay, so
 * position alone would not do.
 */
import type { EvalCaseResult } from '../adk/results.ts'
import { evalCaseResultValue } from '../adk/results-json.ts'
import { decodeCheckedValue, isIngestIssue } from '../ingest/index.ts'
import type {
  EngineEmission,
  EngineOptions,
  IngestedEvent,
  RejectedEvent,
  ResultEvent,
  SessionEngine,
  SessionSpec,
} from '../engine/types.ts'
import type { ResultLog } from './result-log.ts'
import { Transcript } from './transcript.ts'
import { createTurnSlicer } from '../ingest/turn-slicer.ts'

/**
 * What the engine factory gives back: an engine (and what frees the judge state its session holds,
 * called once the session has ended or was aborted), or the problem with the spec (400/422).
 */
export type EngineCreation =
  | { ok: true; engine: SessionEngine; release?: () => void }
  | { ok: false; status: number; title: string; detail: string }

export type EngineFactory = (options: EngineOptions) => EngineCreation

/**
 * One input to the engine, as persisted. Events keep their raw JSON; they are re-parsed on replay.
 * `at` is when the input arrived (host clock, ms): a replay gives the engine these times, so the
 * invocation durations it measures are those of the live session (entries journaled before `at`
 * existed replay without a time, and their durations are not available).
 */
export type JournalEntry = (
  | { op: 'event'; index: number; raw: unknown }
  | { op: 'reject'; rejected: RejectedEvent }
  | { op: 'complete' }
  | { op: 'end' }
) & { at?: number }

export interface Journal {
  append(entry: JournalEntry): void
  entries(): JournalEntry[]
}

/** A journal that keeps nothing: in-memory sessions never need replaying. */
export const NO_JOURNAL: Journal = { append() {}, entries: () => [] }

export type HostedSessionParts = {
  spec: SessionSpec
  log: ResultLog
  journal: Journal
  createEngine: EngineFactory
  /** The store's view of the session's life: idle time and end time drive eviction. */
  lifecycle?: SessionLifecycleHooks
  /** The clock inputs are timed by, in ms (default Date.now): invocation_duration_v1 measures with it. */
  now?: () => number
}

/** Called by a session so its store can tell idle sessions and ended ones apart. */
export type SessionLifecycleHooks = {
  /** Something was fed to the session (an event, a rejection, an invocation boundary). */
  active?(): void
  /** The session ended (once; not during a replay of an already ended session). */
  ended?(): void
  /** A result went into the log for the first time (not one a replay recognised as logged). */
  appended?(event: ResultEvent): void
}

export class HostedSession {
  readonly id: string
  readonly spec: SessionSpec
  readonly log: ResultLog
  /** The conversation so far, for the dashboard (bounded, rebuilt by replay). */
  readonly transcript = new Transcript()
  #journal: Journal
  #lifecycle: SessionLifecycleHooks
  #ended = false
  /** Evicted or deleted: the session takes nothing more and its subscribers were told. */
  #closed = false
  /** Keys (and seqs) of the results the log held when this session was opened. */
  #logged: Map<string, number>
  #caseResultSeq: number | undefined
  /** The case result in ADK's file shape, written once: what /end answers and case.result carries. */
  #caseResultValue: { typed: EvalCaseResult; value: Record<string, unknown> } | undefined
  // What the per-session limits count (src/ingest/limits.ts), rebuilt by replay like everything else.
  #recorded = 0
  #invocationIds = new Set<string>()

  #engine!: SessionEngine
  #release: (() => void) | undefined
  #now: () => number
  /** When the input being fed to the engine arrived: what the engine's clock reads. */
  #at = Number.NaN
  private constructor(parts: HostedSessionParts) {
    this.#now = parts.now ?? Date.now
    this.id = parts.spec.session_id
    this.spec = parts.spec
    this.log = parts.log
    this.#journal = parts.journal
    this.#lifecycle = parts.lifecycle ?? {}
    this.#logged = new Map(parts.log.readAfter(0).map((e) => [e.key, e.seq]))
  }

  /**
   * Starts a session, or rebuilds one from its journal. A spec the engine refuses is a problem value.
   * @example
   * const r = await HostedSession.open({ spec, log, journal: NO_JOURNAL, createEngine })
   */
  static async open(
    parts: HostedSessionParts,
  ): Promise<{ ok: true; session: HostedSession } | Extract<EngineCreation, { ok: false }>> {
    const session = new HostedSession(parts)
    const created = parts.createEngine({ spec: parts.spec, emit: (body) => session.#emit(body), clock: () => session.#at })
    if (!created.ok) return created
    session.#engine = created.engine
    session.#release = created.release
    await session.#replay()
    return { ok: true, session }
  }

  get ended(): boolean {
    return this.#ended
  }

  push(item: IngestedEvent): void {
    if (this.#ended || this.#closed) return
    this.#lifecycle.active?.()
    this.#at = this.#now()
    this.#journal.append({ op: 'event', index: item.index, raw: item.raw, at: this.#at })
    this.#count(item)
    this.transcript.add(item)
    this.#engine.push(item)
  }

  reject(rejected: RejectedEvent): void {
    if (this.#ended || this.#closed) return
    this.#lifecycle.active?.()
    this.#at = this.#now()
    this.#journal.append({ op: 'reject', rejected, at: this.#at })
    this.#count()
    this.#engine.reject(rejected)
  }

  /** Events recorded so far, accepted and rejected: what EVALSTREAM_MAX_EVENTS_PER_SESSION counts. */
  get recordedEvents(): number {
    return this.#recorded
  }

  /** Whether an event of this invocation id opens a new one (EVALSTREAM_MAX_INVOCATIONS_PER_SESSION). */
  isNewInvocation(invocationId: string | null | undefined): boolean {
    return !this.#invocationIds.has(invocationId ?? '')
  }

  get invocationCount(): number {
    return this.#invocationIds.size
  }

  #count(item?: IngestedEvent): void {
    this.#recorded += 1
    if (item) this.#invocationIds.add(item.event.invocation_id ?? '')
  }

  completeInvocation(): void {
    if (this.#ended || this.#closed) return
    this.#lifecycle.active?.()
    this.#at = this.#now()
    this.#journal.append({ op: 'complete', at: this.#at })
    this.#engine.completeInvocation()
  }

  /** Idempotent: a second call returns the same case result, in ADK's file shape (statuses 1/2/3). */
  async end(): Promise<Record<string, unknown>> {
    if (!this.#ended && !this.#closed) {
      this.#at = this.#now()
      this.#journal.append({ op: 'end', at: this.#at })
      this.#ended = true
      this.#lifecycle.ended?.()
    }
    try {
      return this.#fileShape(await this.#engine.end())
    } finally {
      this.#release?.()
    }
  }

  snapshot(): Record<string, unknown> {
    const snapshot = this.#engine.snapshot()
    return {
      ...snapshot,
      case_result: snapshot.case_result && this.#fileShape(snapshot.case_result),
      last_seq: this.log.lastSeq(),
      subscribers: this.log.subscriberCount(),
    }
  }

  abort(reason?: string): void {
    this.#engine.abort(reason)
    this.#release?.()
  }

  /**
   * The store let the session go (evicted, expired or deleted): judges are aborted, open result
   * streams get an `error` frame with `detail` and close, and nothing more is journaled.
   */
  close(detail: string): void {
    if (this.#closed) return
    this.#closed = true
    this.#engine.abort(detail)
    this.#release?.()
    this.log.close({ message: detail })
  }

  get closed(): boolean {
    return this.#closed
  }

  /** Seq of the case.result once it is in the log: subscribers past it have nothing left to wait for. */
  get caseResultSeq(): number | undefined {
    return this.#caseResultSeq
  }

  #emit(emitted: EngineEmission): void {
    const body = emitted.type === 'case.result' ? { ...emitted, data: this.#fileShape(emitted.data) } : emitted
    let seq = this.#logged.get(body.key)
    if (seq === undefined) {
      const event = this.log.append(body)
      seq = event.seq
      this.#lifecycle.appended?.(event)
    }
    if (body.type === 'case.result') this.#caseResultSeq = seq
  }

  /** ADK's file shape of the case result; the engine returns the same object every time, so once. */
  #fileShape(result: EvalCaseResult): Record<string, unknown> {
    if (this.#caseResultValue?.typed !== result) this.#caseResultValue = { typed: result, value: evalCaseResultValue(result) }
    return this.#caseResultValue.value
  }

  async #replay(): Promise<void> {
    // A long journal is replayed in short slices of the event loop, as an upload is scored.
    const slicer = createTurnSlicer()
    for (const entry of this.#journal.entries()) {
      const pause = slicer.check()
      if (pause) await pause
      this.#at = entry.at ?? Number.NaN
      if (entry.op === 'event') {
        const decoded = decodeCheckedValue(entry.raw, entry.index)
        // Only valid events were journaled, within the limits in force then (a lower limit set since
        // must not drop them), so the bounds are not checked again; an issue means the schema changed.
        if (!isIngestIssue(decoded)) {
          this.#count(decoded)
          this.transcript.add(decoded)
          this.#engine.push(decoded)
        }
      } else if (entry.op === 'reject') {
        this.#count()
        this.#engine.reject(entry.rejected)
      }
      else if (entry.op === 'complete') this.#engine.completeInvocation()
      else {
        this.#ended = true
        await this.#engine.end()
      }
    }
  }
}

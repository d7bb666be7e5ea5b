/**
 * A session as the HTTP layer hosts it: the engine, its result log, and a journal of everything that
 * was fed to the engine. The engine is deterministic given its inputs and its judge answers, so a
 * host that persisted the journal (and cached the judge answers) rebuilds an evicted session by
 * replaying it through a fresh engine. Results the log already holds are recognised by their
 * logical key and not appended again: judged results may come back in another order on replay, so
 * position alone would not do.
 */
import type { Failure } from '../engine/problem.ts'
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
import { resultDataBytes, resultDataJson } from './result-json.ts'
import type { ResultLog } from './result-log.ts'
import { Transcript } from './transcript.ts'
import { journaledAdkEvents } from './journaled-events.ts'
import type { Journal } from './journal.ts'
import { type BudgetRefusal, jsonBytes } from '../session/byte-budget.ts'
import { endedEngine } from '../session/ended-engine.ts'
import { EndedAnswers, loggedCriterionResults } from './ended-answers.ts'
import { type SessionBudget, SessionBytes } from '../session/session-bytes.ts'
import { heavyTurn } from './heavy-turns.ts'

/**
 * What the engine factory gives back: an engine (and what frees the judge state its session holds,
 * called once the session has ended or was aborted), or the problem with the spec (400/422).
 */
export type EngineCreation =
  | { ok: true; engine: SessionEngine; release?: () => void }
  | Failure

export type EngineFactory = (options: EngineOptions) => EngineCreation

export { type Journal, type JournalEntry, NO_JOURNAL } from './journal.ts'

/**
 * A replay yields to other work after this many bytes of journaled events (by the budget's
 * estimate) or this many entries, whichever comes first: about 10 ms of scoring on a 2025 laptop
 * core, so no turn of the event loop holds a replay for long (measured in docs/limits.md).
 */
export const REPLAY_SLICE_BYTES = 256 * 1024
export const REPLAY_SLICE_ENTRIES = 500
/** And after this long by the session's clock, for entries whose scoring costs more than usual. */
export const REPLAY_SLICE_MS = 20
/** Logged result keys read per slice before a replay (a key and a number each: cheap, but a long session has many). */
export const REPLAY_KEYS_PAGE = 5_000

/** The not-ended snapshot's text, as UTF-8 (an ended one's is EndedAnswers' own). */
const utf8 = new TextEncoder()
/** A macrotask, so I/O and timers queued meanwhile run before the next slice. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

export type HostedSessionParts = {
  spec: SessionSpec
  log: ResultLog
  journal: Journal
  createEngine: EngineFactory
  /** The store's view of the session's life: idle time and end time drive eviction. */
  lifecycle?: SessionLifecycleHooks
  /** The clock inputs are timed by, in ms (default Date.now): invocation_duration_v1 measures with it. */
  now?: () => number
  /** The byte budgets (none: unbounded, as for the CLI's one session). */
  budget?: SessionBudget
  /** Lets other work run between slices of a replay (default: a macrotask); tests count the slices. */
  yieldTurn?: () => Promise<void>
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
  /** The conversation so far, for the dashboard (bounded; read from the journal when it can be). */
  readonly transcript: Transcript
  #journal: Journal
  #lifecycle: SessionLifecycleHooks
  #ended = false
  /** Evicted or deleted: the session takes nothing more and its subscribers were told. */
  #closed = false
  /** Keys (and seqs) of the results the log held when this session was opened (read by the replay). */
  #logged: Map<string, number> | undefined
  #caseResultSeq: number | undefined
  /** The logged case result's data while something else keeps it alive (the JSON text cache): read without a read-back. */
  #caseResultData: WeakRef<Record<string, unknown>> | undefined
  /** The case result in ADK's file shape, written once: what /end answers and case.result carries. */
  #caseResultValue: { typed: EvalCaseResult; value: Record<string, unknown> } | undefined
  // What the per-session limits count (src/ingest/limits.ts), rebuilt by replay like everything else.
  #recorded = 0
  // Made with the first event (an idle session holds none).
  #invocationIds: Set<string> | undefined

  #engine!: SessionEngine
  #release: (() => void) | undefined
  /** Once ended: what the session answers from, its engine let go (ended-answers.ts). */
  #final: EndedAnswers | undefined
  /** Bytes held, by the budget's estimate (src/session/session-bytes.ts). */
  #bytes: SessionBytes
  /** The last event was refused: further refusals are not recorded until one is accepted again. */
  #refusing = false
  #yieldTurn: () => Promise<void>
  #now: () => number
  /** When the input being fed to the engine arrived: what the engine's clock reads. */
  #at = Number.NaN
  private constructor(parts: HostedSessionParts) {
    this.#now = parts.now ?? Date.now
    this.id = parts.spec.session_id
    this.spec = parts.spec
    this.log = parts.log
    this.#journal = parts.journal
    this.transcript = new Transcript(parts.journal.rereadable ? parts.journal : undefined)
    this.#lifecycle = parts.lifecycle ?? {}
    // What an in-memory database keeps is still this process's memory: the budget keeps counting it.
    const eventsOutside = parts.journal.rereadable === true && parts.journal.inMemory !== true
    this.#bytes = new SessionBytes(this.id, parts.budget, { events: eventsOutside, results: parts.log.outsideHeap })
    this.#yieldTurn = parts.yieldTurn ?? nextTurn
  }

  /**
   * Starts a session, or rebuilds one from its journal. A spec the engine refuses is a problem value.
   * @example
   * const r = await HostedSession.open({ spec, log, journal: NO_JOURNAL, createEngine })
   */
  static async open(
    parts: HostedSessionParts,
  ): Promise<{ ok: true; session: HostedSession } | Failure> {
    const session = new HostedSession(parts)
    const { journal } = parts
    const created = parts.createEngine({
      spec: parts.spec,
      emit: (body) => session.#emit(body),
      clock: () => session.#at,
      ...(journal.rereadable
        ? { conversation: () => journaledAdkEvents(journal), eventsLetGo: (id: string) => session.#bytes.eventsLetGo(id) }
        : {}),
      loggedResults: (seqs) => loggedCriterionResults(session.log, seqs),
    })
    if (!created.ok) return created
    session.#engine = created.engine
    session.#release = created.release
    await session.#replay()
    return { ok: true, session }
  }

  get ended(): boolean {
    return this.#ended
  }

  /**
   * Feeds one event, or refuses it when it would take the session past its byte budget or the
   * process past its own: the refusal is recorded as a rejected event (an `error` result naming the
   * limit and the index; once per run of refusals) and returned, for the caller to answer with.
   */
  push(item: IngestedEvent): BudgetRefusal | undefined {
    if (this.#ended || this.#closed) return undefined
    const bytes = jsonBytes(item.raw)
    const refusal = this.#bytes.refusal(item.index, bytes)
    if (refusal) {
      if (!this.#refusing) this.reject({ index: item.index, message: refusal.detail })
      this.#refusing = true
      return refusal
    }
    this.#refusing = false
    this.#bytes.chargeEvent(bytes, item.event.invocation_id ?? '')
    this.#lifecycle.active?.()
    this.#at = this.#now()
    this.#journal.append({ op: 'event', index: item.index, raw: item.raw, at: this.#at })
    this.#count(item)
    this.transcript.add(item)
    this.#engine.push(item)
    return undefined
  }

  /** The conversation for the dashboard, read once this session's journal can be read without waiting. */
  async conversation(): Promise<ReturnType<Transcript['toJSON']>> {
    await this.#journal.settle?.()
    return this.transcript.toJSON()
  }

  /** Bytes this session holds, by the budget's estimate (EVALSTREAM_MAX_SESSION_BYTES counts them). */
  get heldBytes(): number {
    return this.#bytes.held
  }

  /**
   * Once ended, the engine (every event, every invocation, the criteria's state) is swapped for its
   * final snapshot and the transcript for its clipped entries: an ended session held for its
   * retention keeps its results, not its inputs.
   */
  #freeze(): void {
    if (this.#final || this.#closed) return
    // Each result is kept as its seq in the log when the engine has them (read back when asked).
    const seqs = this.#engine.resultSeqs?.()
    // With the results the end just read (no read-back): the snapshot asked for right after the end.
    const { case_result: typed, ...snapshot } = this.#engine.snapshot(true)
    if (!typed || this.#caseResultSeq === undefined) return
    const kept = seqs ? { ...snapshot, invocations: snapshot.invocations.map((inv) => ({ ...inv, results: {} })) } : snapshot
    const recent = seqs ? { data: this.#caseResultData, snapshot: new WeakRef(snapshot) } : { data: this.#caseResultData }
    this.#final = new EndedAnswers(kept, this.#caseResultSeq, this.log, seqs, recent)
    this.#caseResultData = undefined
    this.#caseResultValue = undefined
    this.#engine = endedEngine(this.id)
    this.#release?.()
    this.transcript.freeze()
    this.#bytes.ended(this.transcript.heldBytes)
  }

  /** The store dropped this ended session from memory (its records stay; it is rebuilt on demand). */
  unload(): void {
    this.#bytes.releaseAll()
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
    return !this.#invocationIds?.has(invocationId ?? '')
  }

  get invocationCount(): number {
    return this.#invocationIds?.size ?? 0
  }

  #count(item?: IngestedEvent): void {
    this.#recorded += 1
    if (item) (this.#invocationIds ??= new Set()).add(item.event.invocation_id ?? '')
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
    if (this.#final) {
      await this.#final.settle()
      const kept = this.#final.caseResult()
      if (kept) return kept
    }
    try {
      // The case result reads back the events and results the engine let go: without waiting for other writes.
      await this.#journal.settle?.()
      await this.log.settle()
      // Many sessions' ends wake on one commit: each builds its case result in a turn of its own.
      await heavyTurn()
      const typed = await this.#engine.end()
      // A concurrent end() may have finished first and let the engine go.
      const settled = this.#final?.caseResult()
      if (settled) return settled
      const result = this.#fileShape(typed)
      this.#freeze()
      return result
    } finally {
      this.#release?.()
    }
  }

  /**
   * The snapshot as JSON text in UTF-8; an ended session's once its rows can be read without
   * waiting for a writer, with its case result's bytes put in as made once (`EndedAnswers.snapshotBytes`).
   */
  async snapshotBytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (!this.#final) {
      // Completed invocations' results are read back from the log: without waiting for other writes.
      await this.log.settle()
      await heavyTurn()
      return utf8.encode(JSON.stringify(this.snapshot()))
    }
    await this.#final.settle()
    await heavyTurn()
    return this.#final.snapshotBytes()
  }

  /**
   * `end()` as JSON text in UTF-8: the bytes its case.result was streamed with, from the text it
   * was logged with, never stringified again (the caches let it go when many sessions end
   * together): kept by the caches, else its row's bytes as stored.
   */
  async endBytes(): Promise<Uint8Array<ArrayBuffer>> {
    const result = this.#final ? undefined : await this.end()
    const final = this.#final
    if (final) {
      const known = final.cachedCaseResultBytes()
      if (known !== undefined) return known
      await final.settle()
      const bytes = final.caseResultBytes()
      if (bytes !== undefined) return bytes
    }
    return resultDataBytes(result ?? await this.end())
  }

  snapshot(): Record<string, unknown> {
    if (this.#final) return this.#final.snapshot()
    const { case_result: typed, ...snapshot } = this.#engine.snapshot()
    const caseResult = typed && this.#fileShape(typed)
    return { ...snapshot, case_result: caseResult, last_seq: this.log.lastSeq(), subscribers: this.log.subscriberCount() }
  }

  /** Resolves once the judges working for this session now have answered (their results are in the log). */
  judgesSettled(): Promise<void> {
    return this.#engine.judgesSettled?.() ?? Promise.resolve()
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
    this.#bytes.releaseAll()
  }

  get closed(): boolean {
    return this.#closed
  }

  /** Seq of the case.result once it is in the log: subscribers past it have nothing left to wait for. */
  /** Where a stream of this session's log ends: its case.result, once logged. */
  get endSeq(): number | undefined {
    return this.#caseResultSeq
  }

  /** Logs what the engine emitted (unless a replay finds it logged) and returns its seq. */
  #emit(emitted: EngineEmission): number {
    const body = emitted.type === 'case.result' ? { ...emitted, data: this.#fileShape(emitted.data) } : emitted
    let seq = this.#logged?.get(body.key)
    // The text the log's storage and streams write anyway (made once, src/session/result-json.ts).
    if (!this.#closed) this.#bytes.chargeResult(resultDataJson(body.data).length + body.key.length)
    if (seq === undefined) {
      // The log keeps what it is given: a result body with its seq is a ResultEvent.
      const event = this.log.append(body) as ResultEvent
      seq = event.seq
      this.#lifecycle.appended?.(event)
    }
    if (body.type === 'case.result') {
      this.#caseResultSeq = seq
      this.#caseResultData = new WeakRef(body.data)
    }
    return seq
  }

  /** ADK's file shape of the case result; the engine returns the same object every time, so once. */
  #fileShape(result: EvalCaseResult): Record<string, unknown> {
    if (this.#caseResultValue?.typed !== result) this.#caseResultValue = { typed: result, value: evalCaseResultValue(result) }
    return this.#caseResultValue.value
  }

  /**
   * Feeds the journal to the fresh engine in slices (REPLAY_SLICE_BYTES, REPLAY_SLICE_ENTRIES,
   * REPLAY_SLICE_MS), yielding between them, so rebuilding a large session never holds the event loop for long.
   */
  async #replay(): Promise<void> {
    for (let after = 0;;) {
      const page = this.log.keys(after, REPLAY_KEYS_PAGE)
      for (const { key, seq } of page) (this.#logged ??= new Map()).set(key, seq)
      if (page.length < REPLAY_KEYS_PAGE) break
      after = page.at(-1)!.seq
      await this.#yieldTurn()
    }
    let sliceBytes = 0
    let sliceEntries = 0
    let sliceStart = this.#now()
    for (const entry of this.#journal.entries()) {
      if (sliceBytes >= REPLAY_SLICE_BYTES || sliceEntries >= REPLAY_SLICE_ENTRIES || this.#now() - sliceStart >= REPLAY_SLICE_MS) {
        await this.#yieldTurn()
        sliceBytes = 0
        sliceEntries = 0
        sliceStart = this.#now()
      }
      sliceEntries += 1
      this.#at = entry.at ?? Number.NaN
      if (entry.op === 'event') {
        const decoded = decodeCheckedValue(entry.raw, entry.index)
        // Only valid events were journaled, within the limits in force then (a lower limit set since
        // must not drop them), so the bounds are not checked again; an issue means the schema changed.
        if (!isIngestIssue(decoded)) {
          const bytes = jsonBytes(entry.raw)
          sliceBytes += bytes
          this.#bytes.chargeEvent(bytes, decoded.event.invocation_id ?? '')
          this.#count(decoded)
          this.transcript.add(decoded)
          this.#engine.push(decoded)
        }
      } else if (entry.op === 'reject') {
        this.#count()
        this.#engine.reject(entry.rejected)
      } else if (entry.op === 'complete') this.#engine.completeInvocation()
      else {
        this.#ended = true
        await this.#engine.end()
      }
    }
    if (this.#ended) this.#freeze()
  }
}

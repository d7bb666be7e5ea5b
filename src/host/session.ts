/**
 * A session as the HTTP layer hosts it: the engine, its result log, and a journal of everything that
 * was fed to the engine. The engine is deterministic given its inputs and its judge answers, so a
 * host that persisted the journal (and cached the judge answers) rebuilds an evicted session by
 * replaying it through a fresh engine. Results the log already holds are recognised by their
 * logical key and not appended again: judged results may come back in another order on replay, so
 * position alone would not do.
 */
import { decodeFrameValue, isIngestIssue } from '../ingest/index.ts'
import type {
  EngineOptions,
  IngestedEvent,
  RejectedEvent,
  ResultEventBody,
  SessionEngine,
  SessionSpec,
} from '../engine/types.ts'
import type { ResultLog } from './result-log.ts'

/** What the engine factory gives back: an engine, or the problem with the spec (400/422). */
export type EngineCreation =
  | { ok: true; engine: SessionEngine }
  | { ok: false; status: number; title: string; detail: string }

export type EngineFactory = (options: EngineOptions) => EngineCreation

/** One input to the engine, as persisted. Events keep their raw JSON; they are re-parsed on replay. */
export type JournalEntry =
  | { op: 'event'; index: number; raw: unknown }
  | { op: 'reject'; rejected: RejectedEvent }
  | { op: 'complete' }
  | { op: 'end' }

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
}

/** Called by a session so its store can tell idle sessions and ended ones apart. */
export type SessionLifecycleHooks = {
  /** Something was fed to the session (an event, a rejection, an invocation boundary). */
  active?(): void
  /** The session ended (once; not during a replay of an already ended session). */
  ended?(): void
}

export class HostedSession {
  readonly id: string
  readonly spec: SessionSpec
  readonly log: ResultLog
  #journal: Journal
  #lifecycle: SessionLifecycleHooks
  #ended = false
  /** Evicted or deleted: the session takes nothing more and its subscribers were told. */
  #closed = false
  /** Keys (and seqs) of the results the log held when this session was opened. */
  #logged: Map<string, number>
  #caseResultSeq: number | undefined

  #engine!: SessionEngine
  private constructor(parts: HostedSessionParts) {
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
    const created = parts.createEngine({ spec: parts.spec, emit: (body) => session.#emit(body) })
    if (!created.ok) return created
    session.#engine = created.engine
    await session.#replay()
    return { ok: true, session }
  }

  get ended(): boolean {
    return this.#ended
  }

  push(item: IngestedEvent): void {
    if (this.#ended || this.#closed) return
    this.#lifecycle.active?.()
    this.#journal.append({ op: 'event', index: item.index, raw: item.raw })
    this.#engine.push(item)
  }

  reject(rejected: RejectedEvent): void {
    if (this.#ended || this.#closed) return
    this.#lifecycle.active?.()
    this.#journal.append({ op: 'reject', rejected })
    this.#engine.reject(rejected)
  }

  completeInvocation(): void {
    if (this.#ended || this.#closed) return
    this.#lifecycle.active?.()
    this.#journal.append({ op: 'complete' })
    this.#engine.completeInvocation()
  }

  /** Idempotent: a second call returns the same case result. */
  async end(): Promise<Record<string, unknown>> {
    if (!this.#ended && !this.#closed) {
      this.#journal.append({ op: 'end' })
      this.#ended = true
      this.#lifecycle.ended?.()
    }
    return this.#engine.end()
  }

  snapshot(): Record<string, unknown> {
    return { ...this.#engine.snapshot(), last_seq: this.log.lastSeq(), subscribers: this.log.subscriberCount() }
  }

  abort(reason?: string): void {
    this.#engine.abort(reason)
  }

  /**
   * The store let the session go (evicted, expired or deleted): judges are aborted, open result
   * streams get an `error` frame with `detail` and close, and nothing more is journaled.
   */
  close(detail: string): void {
    if (this.#closed) return
    this.#closed = true
    this.#engine.abort(detail)
    this.log.close({ message: detail })
  }

  get closed(): boolean {
    return this.#closed
  }

  /** Seq of the case.result once it is in the log: subscribers past it have nothing left to wait for. */
  get caseResultSeq(): number | undefined {
    return this.#caseResultSeq
  }

  #emit(body: ResultEventBody): void {
    const seq = this.#logged.get(body.key) ?? this.log.append(body).seq
    if (body.type === 'case.result') this.#caseResultSeq = seq
  }

  async #replay(): Promise<void> {
    for (const entry of this.#journal.entries()) {
      if (entry.op === 'event') {
        const decoded = decodeFrameValue(entry.raw, entry.index)
        // Only valid events were journaled; an issue here means the schema changed since.
        if (!isIngestIssue(decoded)) this.#engine.push(decoded)
      } else if (entry.op === 'reject') this.#engine.reject(entry.rejected)
      else if (entry.op === 'complete') this.#engine.completeInvocation()
      else {
        this.#ended = true
        await this.#engine.end()
      }
    }
  }
}

/**
 * One session's byte account, by the budget's estimate, counted twice:
 *
 * - what the session was given (events accepted, rejections, results): the per-session quota
 *   (EVALSTREAM_MAX_SESSION_BYTES) bounds it, wherever those bytes are kept;
 * - what of that this process holds in memory: what the process budget
 *   (EVALSTREAM_MAX_PROCESS_BYTES) is charged. Where the store keeps the events and results (a
 *   SQLite journal and result log), a completed invocation's events leave memory once the engine
 *   lets them go, and results never enter it; charging them anyway had the budget count about ten
 *   times the heap a session takes, and refuse work long before memory was short.
 */
import { type BudgetRefusal, type ProcessByteBudget, sessionBudgetRefusal } from './byte-budget.ts'

/** What a session may hold (EVALSTREAM_MAX_SESSION_BYTES) and the process budget it draws from. */
export type SessionBudget = { maxSessionBytes: number; shared: ProcessByteBudget }

/**
 * What a session costs besides its events and results, in the budget's bytes: the engine, criteria
 * and judge state of an open session, and what an ended one keeps (its record, snapshot and log).
 */
export const OPEN_SESSION_BYTES = 64 * 1024
export const ENDED_SESSION_BYTES = 8 * 1024
/** What a result costs beyond its data: its seq, type and the log's entry. */
export const RESULT_OVERHEAD_BYTES = 64

/** Where a session's store keeps what it is given: outside the heap, or in it. */
export type KeptOutsideHeap = { events: boolean; results: boolean }

export class SessionBytes {
  readonly #sessionId: string
  readonly #budget: SessionBudget | undefined
  readonly #outside: KeptOutsideHeap
  /** Everything the session was given (the session quota counts it). */
  #held = 0
  /** What of it is in memory (the process budget is charged this). */
  #inMemory = 0
  #results = 0
  /**
   * Bytes of the events of each invocation still in memory, while their store could give them
   * back (made with the first one): released when the engine lets the invocation's events go. An
   * engine that keeps every event (a metric reads earlier invocations) leaves an entry per
   * invocation, at most EVALSTREAM_MAX_INVOCATIONS_PER_SESSION of them.
   */
  #byInvocation: Map<string, number> | undefined

  /** Without a budget (the CLI's one session) it only counts. */
  constructor(sessionId: string, budget: SessionBudget | undefined, outside: KeptOutsideHeap = { events: false, results: false }) {
    this.#sessionId = sessionId
    this.#budget = budget
    this.#outside = outside
    this.charge(OPEN_SESSION_BYTES)
  }

  /** Bytes the session was given, by the budget's estimate (what EVALSTREAM_MAX_SESSION_BYTES bounds). */
  get held(): number {
    return this.#held
  }

  /** Why an event of `bytes` at `index` may not be taken, or undefined when it may. */
  refusal(index: number, bytes: number): BudgetRefusal | undefined {
    const budget = this.#budget
    if (!budget) return undefined
    if (this.#held + bytes > budget.maxSessionBytes) {
      return sessionBudgetRefusal(this.#sessionId, index, this.#held, bytes, budget.maxSessionBytes)
    }
    if (!budget.shared.fits(bytes)) return budget.shared.refusal(`event ${index} of session '${this.#sessionId}'`)
    return undefined
  }

  /** Bytes held in memory and counted against both budgets (a rejection, the session itself). */
  charge(bytes: number): void {
    this.#held += bytes
    this.#take(bytes)
  }

  /** An accepted event of this invocation: in memory until the engine lets its invocation's events go. */
  chargeEvent(bytes: number, invocationId: string): void {
    this.charge(bytes)
    if (!this.#outside.events) return
    const byInvocation = (this.#byInvocation ??= new Map())
    byInvocation.set(invocationId, (byInvocation.get(invocationId) ?? 0) + bytes)
  }

  /** The engine let go of this invocation's events: the store keeps them, memory no longer does. */
  eventsLetGo(invocationId: string): void {
    const bytes = this.#byInvocation?.get(invocationId)
    if (bytes === undefined) return
    this.#byInvocation!.delete(invocationId)
    this.#give(bytes)
  }

  chargeResult(bytes: number): void {
    const cost = bytes + RESULT_OVERHEAD_BYTES
    this.#held += cost
    if (this.#outside.results) return
    this.#results += cost
    this.#take(cost)
  }

  /** The session ended and let its engine go: it now holds its results in memory (if kept there) and `kept` bytes more. */
  ended(kept: number): void {
    this.#byInvocation = undefined
    const inMemory = ENDED_SESSION_BYTES + this.#results + kept
    if (inMemory < this.#inMemory) this.#give(this.#inMemory - inMemory)
  }

  /** The session left memory: everything it had in memory goes back to the process budget. */
  releaseAll(): void {
    this.#byInvocation = undefined
    this.#give(this.#inMemory)
    this.#held = 0
  }

  #take(bytes: number): void {
    this.#inMemory += bytes
    this.#budget?.shared.add(bytes)
  }

  #give(bytes: number): void {
    this.#inMemory -= bytes
    this.#budget?.shared.release(bytes)
  }
}

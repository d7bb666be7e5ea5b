/**
 * One session's byte account: what it holds (by the budget's estimate), what of that are results
 * (all an ended session keeps), and the per-session and per-process checks an event passes before
 * it is taken. The session feeds it; the process budget hears every change.
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

export class SessionBytes {
  readonly #sessionId: string
  readonly #budget: SessionBudget | undefined
  #held = 0
  #results = 0

  /** Without a budget (the CLI's one session) it only counts. */
  constructor(sessionId: string, budget: SessionBudget | undefined) {
    this.#sessionId = sessionId
    this.#budget = budget
    this.charge(OPEN_SESSION_BYTES)
  }

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

  charge(bytes: number): void {
    this.#held += bytes
    this.#budget?.shared.add(bytes)
  }

  chargeResult(bytes: number): void {
    this.#results += bytes + RESULT_OVERHEAD_BYTES
    this.charge(bytes + RESULT_OVERHEAD_BYTES)
  }

  /** The session ended and let its engine go: it now holds its results and `kept` bytes more. */
  ended(kept: number): void {
    const held = ENDED_SESSION_BYTES + this.#results + kept
    if (held >= this.#held) return
    this.#budget?.shared.release(this.#held - held)
    this.#held = held
  }

  /** The session left memory: everything goes back to the process budget. */
  releaseAll(): void {
    this.#budget?.shared.release(this.#held)
    this.#held = 0
  }
}

/**
 * Bytes are what a session costs a host: every accepted event stays in the engine (and its journal
 * and transcript), every result stays in the log. Two budgets bound that: one per session
 * (EVALSTREAM_MAX_SESSION_BYTES) and one over every session a process holds in memory
 * (EVALSTREAM_MAX_PROCESS_BYTES). Sizes are estimates of the JSON encoding (see `jsonBytes`), taken
 * as events and results are added, so no value is stringified to be measured. The heap a session
 * really takes is about twice its encoded size (parsed objects and the engine's view of them), which
 * the defaults allow for (docs/limits.md).
 */
import { type ProblemLimit, type ProblemOf, problemOf } from '../engine/problem.ts'

/** Encoded bytes one session may hold: events accepted, rejections and results (EVALSTREAM_MAX_SESSION_BYTES). */
export const DEFAULT_MAX_SESSION_BYTES = 256 * 1024 * 1024
/** Encoded bytes all sessions held in memory may take together when the heap size is not known. */
export const DEFAULT_MAX_PROCESS_BYTES = 1024 * 1024 * 1024
/** The share of the runtime's heap limit the process budget defaults to: heap use is ~2x encoded bytes, plus request bodies in flight. */
export const PROCESS_SHARE_OF_HEAP = 0.25
/**
 * What V8 counts in its heap limit for the young generation (three semi-spaces: 64 MiB each on
 * Node 24, 32 MiB on Deno): sessions live in the old space, so the share is taken of the rest.
 */
export const YOUNG_GENERATION_RESERVE = 192 * 1024 * 1024
/** The smallest default, for very small heaps. */
export const MIN_DEFAULT_PROCESS_BYTES = 4 * 1024 * 1024
/** Seconds a client refused for memory is told to wait (Retry-After): sessions end and free memory that fast in practice. */
export const MEMORY_RETRY_AFTER_S = 10

export const SESSION_BYTES_VAR = 'EVALSTREAM_MAX_SESSION_BYTES'
export const PROCESS_BYTES_VAR = 'EVALSTREAM_MAX_PROCESS_BYTES'

export type ByteLimits = { maxSessionBytes: number; maxProcessBytes: number }

/** Why an event or a session was refused: a problem the HTTP layer renders as is (Retry-After with the process budget's). */
export type BudgetRefusal = ProblemOf<'session_byte_budget' | 'process_byte_budget'> & { limit: ProblemLimit }

/**
 * The budget over every session a process holds in memory. Sessions add what they take and give it
 * back when they are let go; before refusing, the host may free memory (`reclaim`: ended sessions
 * kept only for their results go first).
 */
export class ProcessByteBudget {
  readonly limits: ByteLimits
  #used = 0
  #reclaim: (needed: number) => void = () => {}

  constructor(limits: ByteLimits) {
    this.limits = limits
  }

  get used(): number {
    return this.#used
  }

  /** What frees memory when the budget is short: the store evicts or unloads ended sessions. */
  onShortage(reclaim: (needed: number) => void): void {
    this.#reclaim = reclaim
  }

  add(bytes: number): void {
    this.#used += bytes
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes)
  }

  /**
   * Takes `bytes` if they fit as things stand, reclaiming nothing for them: for what a request holds
   * only while it is being handled (an OTLP body in flight), which must never push a session out.
   */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limits.maxProcessBytes) return false
    this.#used += bytes
    return true
  }

  /** Whether `bytes` more fit, after reclaiming what can be reclaimed if they do not. */
  fits(bytes: number): boolean {
    if (this.#used + bytes <= this.limits.maxProcessBytes) return true
    this.#reclaim(this.#used + bytes - this.limits.maxProcessBytes)
    return this.#used + bytes <= this.limits.maxProcessBytes
  }

  /** The refusal for an event (with its index) or a new session past the process budget. */
  refusal(what: string): BudgetRefusal {
    const max = this.limits.maxProcessBytes
    const refusal = problemOf(
      'process_byte_budget',
      'Server memory budget reached',
      `${what} refused: the sessions held take ${this.#used} of ${max} bytes (${PROCESS_BYTES_VAR}=${max}); retry later`,
      { retryAfterS: MEMORY_RETRY_AFTER_S },
    )
    return { ...refusal, limit: { name: PROCESS_BYTES_VAR, value: max } }
  }
}

/** The refusal of one event past its session's budget. */
export function sessionBudgetRefusal(sessionId: string, index: number, held: number, bytes: number, max: number): BudgetRefusal {
  const refusal = problemOf(
    'session_byte_budget',
    'Session byte budget reached',
    `event ${index} (about ${bytes} bytes) refused: session '${sessionId}' holds about ${held} bytes and may hold ${max} (${SESSION_BYTES_VAR}=${max}); end the session or start another`,
  )
  return { ...refusal, limit: { name: SESSION_BYTES_VAR, value: max } }
}

/**
 * The process budget's default from the runtime's heap limit (V8's heap_size_limit): a quarter of
 * it past the young generation, or 1 GiB when the host cannot tell.
 * @example processBytesDefault(4288 * 2 ** 20) // 1073741824 (Node 24's default 4 GiB old space)
 */
export function processBytesDefault(heapLimitBytes: number | undefined): number {
  if (heapLimitBytes === undefined || !(heapLimitBytes > 0)) return DEFAULT_MAX_PROCESS_BYTES
  const oldSpace = heapLimitBytes - YOUNG_GENERATION_RESERVE
  return Math.max(MIN_DEFAULT_PROCESS_BYTES, Math.floor(oldSpace * PROCESS_SHARE_OF_HEAP))
}

/**
 * The size of a JSON value's encoding, estimated in one iterative walk (no recursion, no string
 * built): each string counts its UTF-16 length plus quotes, numbers 8, literals 4-5, and every
 * member or element one separator. Multi-byte characters count once, escapes not at all: close
 * enough for a budget, and never more work than the bounds check that every event already passed.
 * @example jsonBytes({ a: 'xy' }) // 11 (the encoding '{"a":"xy"}' is 10; each member counts a separator)
 */
export function jsonBytes(value: unknown): number {
  let bytes = 0
  // One walk at a time (nothing here calls out), so one stack serves every walk; it is empty after
  // each, and one that grew past a small event's size is let go rather than kept.
  const stack = walkStack.length === 0 ? walkStack : []
  stack.push(value)
  let deepest = 1
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') bytes += v.length + 2
    else if (typeof v === 'number') bytes += 8
    else if (typeof v === 'boolean') bytes += v ? 4 : 5
    else if (v === null || v === undefined) bytes += 4
    else if (Array.isArray(v)) {
      bytes += 2 + v.length
      for (const item of v) stack.push(item)
    } else if (typeof v === 'object') {
      bytes += 2
      for (const key in v as Record<string, unknown>) {
        bytes += key.length + 4
        stack.push((v as Record<string, unknown>)[key])
      }
    }
    if (stack.length > deepest) deepest = stack.length
  }
  if (deepest > KEPT_STACK_ENTRIES) walkStack = []
  return bytes
}

/** jsonBytes' stack, kept between walks up to this many entries (an ordinary event needs a few dozen). */
const KEPT_STACK_ENTRIES = 1024
let walkStack: unknown[] = []

/**
 * A failure as one value: what domain code (the engine's plan, the session store, ingest into a
 * session, the Eval tab's helpers) returns when it refuses something, and what an HTTP route hands
 * to `problem()` as is (src/http/problem.ts renders it as RFC 9457 problem+json). Its `code`
 * (./failure-codes.ts) decides its status, its problem type and its metrics label; `status` is
 * carried along for callers that only need the number. `limit` names the limit that refused, with
 * the value in force, so a client can tell which setting to raise.
 */
import { type FailureCode, type FailureStatus, failureStatus } from './failure-codes.ts'

export type { FailureCode } from './failure-codes.ts'

export type ProblemLimit = { name: string; value: number }

/** What a problem says besides its code. */
export type ProblemFields = {
  title: string
  detail: string
  /** The limit that refused (its variable and the value in force), where a limit did. */
  limit?: ProblemLimit
  /** Further RFC 9457 extension members (e.g. `accepted` and `rejected` of an upload). */
  extensions?: Record<string, unknown>
  /** Seconds after which the same request may succeed (a 503 or 429): sent as `Retry-After`. */
  retryAfterS?: number
}

/** A problem of one of the codes `C`: its status is the one the table gives that code. */
export type ProblemOf<C extends FailureCode> = C extends FailureCode ? { code: C; status: FailureStatus<C> } & ProblemFields : never

export type Problem = ProblemOf<FailureCode>

/** The failing side of every domain result. */
export type Failure<C extends FailureCode = FailureCode> = { ok: false; problem: ProblemOf<C> }

type More = Pick<ProblemFields, 'limit' | 'extensions' | 'retryAfterS'>

/**
 * @example problemOf('session_byte_budget', 'Session byte budget reached', detail, { limit }).status // 413
 */
export function problemOf<C extends FailureCode>(code: C, title: string, detail: string, more: More = {}): ProblemOf<C> {
  return { code, status: failureStatus(code), title, detail, ...more } as ProblemOf<C>
}

/**
 * @example return failure('session_not_found', 'Session not found', `no session '${id}'`)
 */
export function failure<C extends FailureCode>(code: C, title: string, detail: string, more: More = {}): Failure<C> {
  return { ok: false, problem: problemOf(code, title, detail, more) }
}

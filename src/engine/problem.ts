/**
 * A failure as one value: what domain code (the engine's plan, the session store, ingest into a
 * session, the Eval tab's helpers) returns when it refuses something, and what an HTTP route hands
 * to `problem()` as is (src/http/problem.ts renders it as RFC 9457 problem+json). `limit` names the
 * limit that refused, with the value in force, so a client can tell which setting to raise.
 */

export type ProblemLimit = { name: string; value: number }

export type Problem = {
  status: number
  title: string
  detail: string
  /** The limit that refused (its variable and the value in force), where a limit did. */
  limit?: ProblemLimit
  /** Further RFC 9457 extension members (e.g. `accepted` and `rejected` of an upload). */
  extensions?: Record<string, unknown>
  /** Seconds after which the same request may succeed (a 503 or 429): sent as `Retry-After`. */
  retryAfterS?: number
}

/** The failing side of every domain result. */
export type Failure = { ok: false; problem: Problem }

/**
 * @example return failure(404, 'Session not found', `no session '${id}'`)
 */
export function failure(status: number, title: string, detail: string, more: Pick<Problem, 'limit' | 'extensions'> = {}): Failure {
  return { ok: false, problem: { status, title, detail, ...more } }
}

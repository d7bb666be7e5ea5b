/**
 * RFC 9457 problem details: every error the API returns says what was wrong and where. The status
 * and the `type` come from the failure's code (src/engine/failure-codes.ts), never from each other.
 */
import type { Context } from 'hono'
import { FAILURES } from '../engine/failure-codes.ts'
import { type FailureCode, type Problem as ProblemValue, problemOf } from '../engine/problem.ts'

export type Problem = { type: string; title: string; status: number; detail: string; instance?: string }

/** RFC 9457 extension members: e.g. `limit` (which limit was hit), `accepted`/`rejected` of an upload. */
export type ProblemExtensions = Record<string, unknown>

export const PROBLEM_TYPE_BASE = 'https://evalstream.dev/problems/'

/** The problem type of a code, so clients can branch on `type` without parsing titles. */
export function problemType(code: FailureCode): string {
  return PROBLEM_TYPE_BASE + FAILURES[code].type
}

/**
 * Renders a problem as `application/problem+json`; `instance` defaults to the request path. Takes
 * the problem value domain code returns as is, or its code and words.
 * @example
 * return problem(c, 'session_not_found', 'Session not found', `no session '${id}'`)
 * if (!created.ok) return problem(c, created.problem)
 */
export function problem(c: Context, value: ProblemValue, extensions?: ProblemExtensions): Response
export function problem(c: Context, code: FailureCode, title: string, detail: string, extensions?: ProblemExtensions): Response
export function problem(
  c: Context,
  first: FailureCode | ProblemValue,
  second?: string | ProblemExtensions,
  third?: string,
  fourth?: ProblemExtensions,
): Response {
  if (typeof first === 'string') {
    return problemResponse(problemOf(first, second as string, third as string), new URL(c.req.url).pathname, fourth)
  }
  return problemResponse(first, new URL(c.req.url).pathname, second as ProblemExtensions | undefined)
}

/**
 * The response of a problem value outside a Hono route (a Durable Object's own answer); without
 * `instance` the body has none.
 * @example return problemResponse(problemOf('misconfigured', 'Misconfigured deployment', error))
 */
export function problemResponse(value: ProblemValue, instance?: string, extensions?: ProblemExtensions): Response {
  const { status } = FAILURES[value.code]
  const body: Problem & ProblemExtensions = {
    ...value.extensions,
    ...(value.limit ? { limit: value.limit } : {}),
    ...extensions,
    type: problemType(value.code),
    title: value.title,
    status,
    detail: value.detail,
    instance,
  }
  const response = new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/problem+json' } })
  if (value.retryAfterS !== undefined) response.headers.set('retry-after', String(value.retryAfterS))
  return response
}

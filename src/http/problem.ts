/**
 * RFC 9457 problem details: every error the API returns says what was wrong and where.
 */
import type { Context } from 'hono'
import type { Problem as ProblemValue } from '../engine/problem.ts'

export type Problem = { type: string; title: string; status: number; detail: string; instance?: string }

/** RFC 9457 extension members: e.g. `limit` (which limit was hit), `accepted`/`rejected` of an upload. */
export type ProblemExtensions = Record<string, unknown>

export const PROBLEM_TYPE_BASE = 'https://evalstream.dev/problems/'

/** Problem types by status, so clients can branch on `type` without parsing titles. */
const TYPE_BY_STATUS: Record<number, string> = {
  400: 'bad-request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  409: 'conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  410: 'gone',
  422: 'unprocessable',
  429: 'too-many-requests',
  502: 'bad-gateway',
  503: 'unavailable',
  504: 'gateway-timeout',
}

/**
 * Renders a problem as `application/problem+json`; `instance` defaults to the request path. Takes
 * the problem value domain code returns as is, or its parts.
 * @example
 * return problem(c, 404, 'Session not found', `no session '${id}'`)
 * if (!created.ok) return problem(c, created.problem)
 */
export function problem(c: Context, value: ProblemValue, extensions?: ProblemExtensions): Response
export function problem(c: Context, status: number, title: string, detail: string, extensions?: ProblemExtensions): Response
export function problem(
  c: Context,
  first: number | ProblemValue,
  second?: string | ProblemExtensions,
  third?: string,
  fourth?: ProblemExtensions,
): Response {
  if (typeof first !== 'number') {
    const more = second as ProblemExtensions | undefined
    const response = render(c, first.status, first.title, first.detail, {
      ...first.extensions,
      ...(first.limit ? { limit: first.limit } : {}),
      ...more,
    })
    if (first.retryAfterS !== undefined) response.headers.set('retry-after', String(first.retryAfterS))
    return response
  }
  return render(c, first, second as string, third as string, fourth)
}

function render(c: Context, status: number, title: string, detail: string, extensions?: ProblemExtensions): Response {
  const body: Problem & ProblemExtensions = {
    ...extensions,
    type: PROBLEM_TYPE_BASE + (TYPE_BY_STATUS[status] ?? 'internal'),
    title,
    status,
    detail,
    instance: new URL(c.req.url).pathname,
  }
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  })
}

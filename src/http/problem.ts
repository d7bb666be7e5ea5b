/**
 * RFC 9457 problem details: every error the API returns says what was wrong and where.
 */
import type { Context } from 'hono'

export type Problem = { type: string; title: string; status: number; detail: string; instance?: string }

export const PROBLEM_TYPE_BASE = 'https://evalstream.dev/problems/'

/** Problem types by status, so clients can branch on `type` without parsing titles. */
const TYPE_BY_STATUS: Record<number, string> = {
  400: 'bad-request',
  404: 'not-found',
  405: 'method-not-allowed',
  409: 'conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  410: 'gone',
  422: 'unprocessable',
  502: 'bad-gateway',
  503: 'unavailable',
}

/**
 * Renders a problem as `application/problem+json`; `instance` defaults to the request path.
 * @example
 * return problem(c, 404, 'Session not found', `no session '${id}'`)
 */
export function problem(c: Context, status: number, title: string, detail: string): Response {
  const body: Problem = {
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

/**
 * `X-Content-Type-Options: nosniff` on every response: a browser then never reads an answer as
 * another type than it says (a JSON problem or an SSE stream taken for HTML or script). Set after
 * the handler ran, so 401s, 404s, errors, proxied answers and streams all carry it.
 */
import type { MiddlewareHandler } from 'hono'

export const NO_SNIFF = ['x-content-type-options', 'nosniff'] as const

/** @example app.use('*', noSniff) */
export const noSniff: MiddlewareHandler = async (c, next) => {
  await next()
  try {
    c.res.headers.set(...NO_SNIFF)
  } catch {
    // A response passed through as received (fetch, a Durable Object) has immutable headers: copy it.
    const copy = new Response(c.res.body, c.res)
    copy.headers.set(...NO_SNIFF)
    c.res = undefined
    c.res = copy
  }
}

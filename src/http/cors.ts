/**
 * CORS for a browser dashboard on another origin (EVALSTREAM_CORS_ORIGINS). Preflights are
 * answered before authentication (browsers never send credentials on them); every other response,
 * 401s included, carries the allow headers so the page can read the problem. No cookies are used
 * (tokens travel in Authorization), so credentials mode stays off and `*` is safe to allow.
 */
import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import { CORS_MAX_AGE_SECONDS, type CorsSettings } from './auth-config.ts'

/** What a browser client sends: the token, JSON or NDJSON bodies, SSE resume, the proxy's session pick and results mode. */
export const CORS_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Last-Event-ID',
  'X-Evalstream-Session',
  'X-Evalstream-Results',
]

/** What a browser client may read besides the safelisted headers. */
export const CORS_EXPOSE_HEADERS = ['Location', 'WWW-Authenticate', 'Retry-After', 'X-Evalstream-Session', 'X-Evalstream-Note']

/** The API's methods, plus those ADK api_server routes use in proxy mode. */
export const CORS_ALLOW_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

/**
 * The CORS middleware, or a pass-through when no origin is configured.
 * @example app.use('*', corsFor(deps.cors))
 */
export function corsFor(settings: CorsSettings | undefined): MiddlewareHandler {
  if (!settings) return (_c, next) => next()
  return cors({
    origin: settings.origins,
    allowMethods: CORS_ALLOW_METHODS,
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    credentials: false,
  })
}

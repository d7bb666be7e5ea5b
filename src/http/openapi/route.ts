/**
 * `GET /openapi.json`: the document, built once per app on first request (public, like /healthz).
 */
import type { Context } from 'hono'
import type { AppDeps } from '../deps.ts'
import type { RouteDoc } from './describe.ts'
import { buildOpenApiDocument } from './document.ts'
import { API_ROUTES } from './routes.ts'

/**
 * Every route the app serves, described: the core API plus the lists other route modules bring.
 * @example app.get('/openapi.json', openApiRoute(deps, [...resultsDocs]))
 */
export function openApiRoute(deps: AppDeps, more: readonly RouteDoc[] = []): (c: Context) => Response {
  let text: string | undefined
  return (c) => {
    text ??= JSON.stringify(buildOpenApiDocument([...API_ROUTES, ...more], { auth: deps.auth !== undefined, publicUrl: deps.publicUrl }))
    return c.body(text, 200, { 'content-type': 'application/json; charset=utf-8' })
  }
}

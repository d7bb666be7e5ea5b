/**
 * The dashboard: `GET /` and its assets under `/dashboard/`: the HTML shell, the CSS, and the page
 * script, bundled from the TypeScript modules in `browser/` into a committed generated module
 * (`npm run build:dashboard`), so every runtime serves the same bytes without a build step at
 * start. The page itself is
 * public (a browser navigating to it sends no token); everything it shows comes from the API with
 * the token the user typed in (kept in sessionStorage), so without a token it shows nothing.
 *
 * A strict Content-Security-Policy (no inline script, no other origin) backs up the rule the client
 * code follows: untrusted text only ever goes into the page through textContent.
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import { DASHBOARD_JS } from './bundle.generated.ts'
import { PAGE_HTML } from './page.ts'
import { STYLE_CSS } from './style.ts'

/** The dashboard's assets by file name, served at /dashboard/{name}. */
export const DASHBOARD_ASSETS: Readonly<Record<string, { type: string; body: string }>> = {
  'style.css': { type: 'text/css; charset=utf-8', body: STYLE_CSS },
  'main.js': { type: 'text/javascript; charset=utf-8', body: DASHBOARD_JS },
}

export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/**
 * Paths the dashboard serves without a token (GET and HEAD).
 * @example isDashboardPath('/dashboard/main.js') // true; isDashboardPath('/dashboard/x.js') // false
 */
export function isDashboardPath(path: string): boolean {
  return path === '/' || (path.startsWith('/dashboard/') && Object.hasOwn(DASHBOARD_ASSETS, path.slice('/dashboard/'.length)))
}

function send(c: Context, type: string, body: string): Response {
  return c.body(body, 200, {
    'content-type': type,
    'content-security-policy': DASHBOARD_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    // Assets change with the server version only; a short cache keeps upgrades visible.
    'cache-control': 'no-cache',
  })
}

/**
 * Mount before the token check: `app.route('/', dashboardRoutes())`.
 * @example app.route('/', dashboardRoutes())
 */
export function dashboardRoutes(): Hono {
  const app = new Hono()
  app.get('/', (c) => send(c, 'text/html; charset=utf-8', PAGE_HTML))
  app.get('/dashboard/:file', (c, next) => {
    const asset = Object.hasOwn(DASHBOARD_ASSETS, c.req.param('file')) ? DASHBOARD_ASSETS[c.req.param('file')] : undefined
    return asset ? send(c, asset.type, asset.body) : next()
  })
  return app
}

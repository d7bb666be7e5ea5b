/**
 * Proxy mode's Eval tab routes on Workers: the eval sets and results of one tenant's app live in
 * one Durable Object of the SESSIONS namespace, named `evalsets/<tenant>/<app>`. A `/` never
 * occurs in a session id (SESSION_ID_PATTERN), so that object is never some session's object.
 * Inside it, the same app answers the routes over that object's SQLite (src/http/dev-eval/sqlite-eval-set-store.ts).
 */

/** The Eval tab's routes (src/http/dev-eval/routes.ts); other `/dev/...` routes go to the agent. */
const EVAL_PATH = /^\/dev\/apps\/([^/]+)\/(?:eval_sets|eval-sets|eval_results|eval-results|metrics-info)(?:\/|$)/

/**
 * The object's name for a request path, or undefined when the path is not an Eval tab route.
 * @example evalSetsObjectName('/dev/apps/weather_agent/eval_sets', 'acme') // 'evalsets/acme/weather_agent'
 */
export function evalSetsObjectName(path: string, tenant: string | undefined): string | undefined {
  const match = EVAL_PATH.exec(path)
  if (!match) return undefined
  let app: string
  try {
    app = decodeURIComponent(match[1]!)
  } catch {
    // Not decodable: the app inside answers the problem.
    app = match[1]!
  }
  return `evalsets/${tenant ?? ''}/${app}`
}

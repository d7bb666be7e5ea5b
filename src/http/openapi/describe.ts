/**
 * How a route describes itself for /openapi.json: one `describeRoute({...})` per route, in a list
 * next to the routes (routes.ts for the core API). Bodies name zod schemas: a name from
 * NAMED_SCHEMAS, or `{ name, schema }` to add one. A status given as a string is a problem+json
 * answer with that description. docs/openapi.md shows how to add a route.
 */
import type * as z from 'zod'

/** A component schema: its name in NAMED_SCHEMAS, or a new one with its name. */
export type SchemaRef = string | { name: string; schema: z.ZodType }

/** One SSE event type of a stream: what `data:` holds. */
export type SseEventDoc = { data: SchemaRef; description: string }

export type ResponseDoc = {
  description: string
  /** An `application/json` body. */
  json?: SchemaRef
  /** A `text/event-stream` body: its event types (`event:` lines) and their data. */
  sse?: Record<string, SseEventDoc>
  /** A body of another media type, described in words (e.g. the Prometheus text format). */
  text?: { mediaType: string; description: string }
  /** Response headers, by name: their description. */
  headers?: Record<string, string>
}

export type RouteDoc = {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  /** The Hono pattern as registered, e.g. `/v1/sessions/:id` (becomes `/v1/sessions/{id}`). */
  path: string
  summary: string
  description?: string
  tag: string
  /** No bearer token needed (routes in auth.ts PUBLIC_PATHS). */
  public?: boolean
  /** A security scheme other than tenant bearer tokens (e.g. `metricsToken`). */
  security?: 'metricsToken'
  /** Path parameter descriptions by name; every `:name` of the path is a required string parameter. */
  params?: Record<string, string>
  query?: Record<string, string>
  /** Request headers, by name: their description. */
  headers?: Record<string, string>
  body?: { description?: string; required?: boolean; content: Record<string, SchemaRef | { text: string }> }
  /** By status; a string is a problem+json answer with that description. */
  responses: Record<number, ResponseDoc | string>
}

/**
 * Marks a route description (and type-checks it).
 * @example
 * export const statsDocs = [describeRoute({ method: 'get', path: '/v1/stats', tag: 'results', summary: 'Per-criterion aggregates', responses: { 200: { description: 'aggregates', json: { name: 'Stats', schema: Stats } } } })]
 */
export function describeRoute(doc: RouteDoc): RouteDoc {
  return doc
}

/** `/v1/sessions/:id/events` -> `/v1/sessions/{id}/events` */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}')
}

/** The `:name` parameters of a Hono pattern, in order. */
export function pathParams(honoPath: string): string[] {
  return [...honoPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!)
}

/** `get /v1/sessions/:id/results` -> `getV1SessionsIdResults` */
export function operationId(doc: Pick<RouteDoc, 'method' | 'path'>): string {
  const words = doc.path.split(/[^A-Za-z0-9]+/).filter(Boolean)
  return doc.method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')
}

export function schemaName(ref: SchemaRef): string {
  return typeof ref === 'string' ? ref : ref.name
}

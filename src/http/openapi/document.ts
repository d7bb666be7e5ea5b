/**
 * Builds the OpenAPI 3.1 document from route descriptions (describe.ts) and zod schemas
 * (z.toJSONSchema over a registry, so every named schema is one component, shared by `$ref`).
 * Nothing in the document is written by hand but the words.
 */
import * as z from 'zod'
import { toCamel } from '../../adk/casing.ts'
import { openApiPath, operationId, pathParams, type ResponseDoc, type RouteDoc, schemaName, type SchemaRef } from './describe.ts'
import { ADK_MODELS, NAMED_SCHEMAS } from './schemas.ts'

export const OPENAPI_VERSION = '3.1.0'
const REF = '#/components/schemas/'
type Json = Record<string, unknown>

export type DocumentOptions = {
  /** Tenant bearer tokens are configured (EVALSTREAM_TOKENS): the API requires them. */
  auth: boolean
  /** EVALSTREAM_PUBLIC_URL, listed as the server. */
  publicUrl?: string
  version?: string
}

/**
 * @example
 * const doc = buildOpenApiDocument(API_ROUTES, { auth: false })
 * doc.paths['/v1/sessions/{id}'].get.operationId // 'getV1SessionsId'
 */
export function buildOpenApiDocument(routes: readonly RouteDoc[], options: DocumentOptions): Json & { paths: Record<string, Json> } {
  const paths: Record<string, Json> = {}
  for (const route of routes) {
    const path = openApiPath(route.path)
    const item = (paths[path] ??= {})
    if (item[route.method]) throw new Error(`${route.method.toUpperCase()} ${route.path} is described twice`)
    item[route.method] = operation(route)
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'evalstream',
      version: options.version ?? '0.1.0',
      description: 'Live evaluation of ADK agents with ADK evaluation criteria. Errors are RFC 9457 problem details.',
    },
    ...(options.publicUrl ? { servers: [{ url: options.publicUrl }] } : {}),
    // Open deployments take requests without a token ({}); with EVALSTREAM_TOKENS a token is required.
    security: options.auth ? [{ bearerAuth: [] }] : [{}, { bearerAuth: [] }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: { schemas: componentSchemas(routes), securitySchemes: SECURITY_SCHEMES },
  }
}

const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'A tenant token from EVALSTREAM_TOKENS (`tenant:token`); the token names the tenant. Not needed when none is configured.',
  },
  metricsToken: { type: 'http', scheme: 'bearer', description: 'EVALSTREAM_METRICS_TOKEN (docs/metrics.md).' },
}

function operation(route: RouteDoc): Json {
  const parameters = [
    ...pathParams(route.path).map((name) => param('path', name, route.params?.[name] ?? name, true)),
    ...Object.entries(route.query ?? {}).map(([name, text]) => param('query', name, text, false)),
    ...Object.entries(route.headers ?? {}).map(([name, text]) => param('header', name, text, false)),
  ]
  const responses: Record<string, Json> = {}
  for (const [status, doc] of Object.entries(route.responses)) responses[status] = response(doc)
  if (!route.public && !route.security) responses['401'] ??= response('no valid bearer token (only when EVALSTREAM_TOKENS is set)')
  responses['500'] ??= response('internal error; the server keeps running')
  return {
    operationId: operationId(route),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    ...(route.public ? { security: [] } : route.security ? { security: [{ [route.security]: [] }, {}] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: requestBody(route.body) } : {}),
    responses,
  }
}

function param(where: 'path' | 'query' | 'header', name: string, description: string, required: boolean): Json {
  return { name, in: where, required, description, schema: { type: 'string' } }
}

function requestBody(body: NonNullable<RouteDoc['body']>): Json {
  const content: Record<string, Json> = {}
  for (const [type, ref] of Object.entries(body.content)) {
    content[type] = typeof ref === 'object' && 'text' in ref
      ? { schema: { type: 'string', description: ref.text } }
      : { schema: refTo(ref) }
  }
  return { required: body.required ?? true, ...(body.description ? { description: body.description } : {}), content }
}

function response(doc: ResponseDoc | string): Json {
  if (typeof doc === 'string') return { description: doc, content: { 'application/problem+json': { schema: refTo('Problem') } } }
  const content: Record<string, Json> = {}
  if (doc.json) content['application/json'] = { schema: refTo(doc.json) }
  if (doc.sse) {
    const names = Object.keys(doc.sse).join(', ')
    content['text/event-stream'] = {
      schema: { type: 'string', description: `Server-sent events (id: seq, resume with Last-Event-ID); event types: ${names}` },
      // OpenAPI 3.1 has no word for an event stream's items: each event type and its data schema.
      'x-sse-events': Object.fromEntries(
        Object.entries(doc.sse).map(([event, e]) => [event, { description: e.description, data: refTo(e.data) }]),
      ),
    }
  }
  if (doc.text) content[doc.text.mediaType] = { schema: { type: 'string', description: doc.text.description } }
  const headers = Object.entries(doc.headers ?? {}).map(([name, description]) => [name, { description, schema: { type: 'string' } }])
  return {
    description: doc.description,
    ...(headers.length ? { headers: Object.fromEntries(headers) } : {}),
    ...(Object.keys(content).length ? { content } : {}),
  }
}

function refTo(ref: SchemaRef): Json {
  return { $ref: REF + schemaName(ref) }
}

/** Every named schema (NAMED_SCHEMAS and those routes bring) as JSON Schema 2020-12 components. */
function componentSchemas(routes: readonly RouteDoc[]): Record<string, Json> {
  const named = new Map<string, z.ZodType>(Object.entries(NAMED_SCHEMAS))
  const used = new Set<string>()
  const note = (ref: SchemaRef) => {
    used.add(schemaName(ref))
    if (typeof ref === 'string') return
    const known = named.get(ref.name)
    if (known && known !== ref.schema) throw new Error(`two different schemas are named ${ref.name}`)
    named.set(ref.name, ref.schema)
  }
  for (const route of routes) {
    for (const ref of Object.values(route.body?.content ?? {})) if (!(typeof ref === 'object' && 'text' in ref)) note(ref)
    for (const doc of Object.values(route.responses)) {
      if (typeof doc === 'string') continue
      if (doc.json) note(doc.json)
      for (const e of Object.values(doc.sse ?? {})) note(e.data)
    }
  }
  for (const name of used) {
    if (!named.has(name)) throw new Error(`no schema named ${name} (add it to NAMED_SCHEMAS or pass { name, schema })`)
  }
  const registry = z.registry<{ id: string }>()
  for (const [id, schema] of named) registry.add(schema, { id })
  const { schemas } = z.toJSONSchema(registry, { io: 'input', unrepresentable: 'any', uri: (id) => REF + id }) as {
    schemas: Record<string, Json>
  }
  const out: Record<string, Json> = {}
  for (const [name, schema] of Object.entries(schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema
    out[name] = ADK_MODELS.has(name) ? withCamelAliases(rest) : rest
  }
  return out
}

/**
 * ADK models take each field under its snake_case name or its camelCase alias (src/adk/casing.ts):
 * both are listed. Walks our own generated schemas, whose depth is fixed by the source.
 */
function withCamelAliases(schema: Json): Json {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk)
    if (typeof value !== 'object' || value === null) return value
    const out: Json = {}
    for (const [k, v] of Object.entries(value)) out[k] = walk(v)
    const props = out.properties
    if (out.type === 'object' && typeof props === 'object' && props !== null) {
      const withAliases: Json = { ...(props as Json) }
      for (const [field, sub] of Object.entries(props as Json)) {
        const alias = toCamel(field)
        if (alias !== field && !(alias in withAliases)) withAliases[alias] = sub
      }
      out.properties = withAliases
      // A required field may come under either name: one of the two must be there.
      const required = Array.isArray(out.required) ? (out.required as string[]) : []
      const either = required.filter((f) => toCamel(f) !== f)
      if (either.length) {
        out.required = required.filter((f) => toCamel(f) === f)
        if ((out.required as string[]).length === 0) delete out.required
        out.allOf = either.map((f) => ({ anyOf: [{ required: [f] }, { required: [toCamel(f)] }] }))
      }
    }
    return out
  }
  return walk(schema) as Json
}

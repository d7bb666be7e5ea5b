/**
 * /openapi.json: covers every route the Hono app registers (and nothing it does not), is a valid
 * OpenAPI 3.1 document (the official schema, through @seriousme/openapi-schema-validator), every
 * `$ref` resolves, and it is public even when tokens are configured.
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../../src/http/app.ts'
import { buildOpenApiDocument } from '../../../../src/http/openapi/document.ts'
import { describeRoute, openApiPath } from '../../../../src/http/openapi/describe.ts'
import { API_ROUTES } from '../../../../src/http/openapi/routes.ts'
import { memorySessionStore } from '../../../../src/session/store.ts'
import { depsFromEnv } from '../../../../src/config/setup.ts'
import { NO_JUDGE_ENV } from '../../../support/no-judge-env.ts'

const TOKEN = 'a'.repeat(32)
type Spec = Parameters<Validator['validate']>[0]

function appWith(env: Record<string, string> = {}) {
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...env }, {
    store: (limits, feed) => memorySessionStore({ limits, feed, sweeper: 'manual' }),
  })
  if (!setup.ok) throw new Error(setup.error)
  return createApp(setup.deps)
}

/** `METHOD /openapi/path` of every handler the app registered (middleware `ALL /*` left out). */
function appOperations(app: ReturnType<typeof createApp>): string[] {
  const ops = app.routes.filter((r) => !(r.method === 'ALL' && r.path === '/*')).map((r) => `${r.method} ${openApiPath(r.path)}`)
  return [...new Set(ops)].sort()
}

function documentOperations(doc: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort()
}

async function fetchDocument(app: ReturnType<typeof createApp>) {
  const res = await app.request('/openapi.json')
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  return (await res.json()) as { openapi: string; paths: Record<string, Record<string, any>>; components: any; security: unknown }
}

describe('GET /openapi.json', () => {
  it('describes exactly the routes the app registers', async () => {
    const app = appWith()
    const doc = await fetchDocument(app)
    // Both directions: a new route without a description fails, and so does a description of a route that is gone.
    expect(documentOperations(doc)).toEqual(appOperations(app))
    expect(appOperations(app).length).toBeGreaterThanOrEqual(15)
  })

  it('is a valid OpenAPI 3.1 document whose every $ref resolves', async () => {
    const doc = await fetchDocument(appWith())
    expect(doc.openapi).toBe('3.1.0')
    const validator = new Validator()
    const result = await validator.validate(doc as unknown as Spec)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    // The validator does look: a response without its description is refused.
    const broken = structuredClone(doc)
    delete broken.paths['/healthz']!.get.responses['200'].description
    expect((await new Validator().validate(broken as unknown as Spec)).valid).toBe(false)
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!)
    expect(refs.length).toBeGreaterThan(20)
    for (const name of new Set(refs)) expect(doc.components.schemas, `$ref to ${name}`).toHaveProperty([name])
  })

  it('documents errors as problem+json, streams as text/event-stream with their event types, and bearer auth', async () => {
    const doc = await fetchDocument(appWith({ EVALSTREAM_TOKENS: `acme:${TOKEN}` }))
    const events = doc.paths['/v1/sessions/{id}/events']!.post
    expect(events.responses['413'].content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' })
    expect(events.responses['401'].content).toHaveProperty(['application/problem+json'])
    expect(events.requestBody.content).toHaveProperty(['application/x-ndjson'])
    const stream = doc.paths['/v1/sessions/{id}/results']!.get.responses['200'].content['text/event-stream']
    expect(Object.keys(stream['x-sse-events'])).toEqual([
      'invocation.started',
      'criterion.progress',
      'criterion.result',
      'case.result',
      'error',
    ])
    expect(stream['x-sse-events']['criterion.result'].data).toEqual({ $ref: '#/components/schemas/CriterionResult' })
    expect(Object.keys(doc.paths['/v1/runs/{id}/results']!.get.responses['200'].content['text/event-stream']['x-sse-events'])).toContain(
      'run.result',
    )
    expect(Object.keys(doc.paths['/run_sse']!.post.responses['200'].content['text/event-stream']['x-sse-events'])).toEqual([
      'message',
      'evalstream',
    ])
    // With tokens configured the API requires one; /healthz, /v1/criteria and /openapi.json do not.
    expect(doc.security).toEqual([{ bearerAuth: [] }])
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    for (const path of ['/healthz', '/v1/criteria', '/openapi.json']) expect(doc.paths[path]!.get.security).toEqual([])
    expect(doc.paths['/metrics']!.get.security).toEqual([{ metricsToken: [] }, {}])
  })

  it('takes request schemas from the zod schemas the routes validate with, camelCase aliases of ADK models included', async () => {
    const doc = await fetchDocument(appWith())
    const create = doc.components.schemas.CreateSession
    // CreateSessionRequest's own session_id rule, and its raw parts typed as the ADK models.
    expect(create.properties.session_id.pattern).toBe('^(?!\\.{1,2}$)[A-Za-z0-9._~:-]{1,200}$')
    expect(create.additionalProperties).toBe(false)
    expect(create.properties.eval_config.$ref).toBe('#/components/schemas/EvalConfig')
    const event = doc.components.schemas.AdkEvent
    expect(event.properties).toHaveProperty(['invocation_id'])
    expect(event.properties).toHaveProperty(['invocationId'])
    const evalCase = doc.components.schemas.EvalCase
    // eval_id is required under either spelling.
    expect(evalCase.allOf).toContainEqual({ anyOf: [{ required: ['eval_id'] }, { required: ['evalId'] }] })
  })

  it('is public even when tokens are configured', async () => {
    const app = appWith({ EVALSTREAM_TOKENS: `acme:${TOKEN}` })
    expect((await app.request('/openapi.json')).status).toBe(200)
    expect((await app.request('/v1/sessions/x')).status).toBe(401)
  })

  it('names a route description that refers to a schema nobody defined, and a route described twice', () => {
    const orphan = describeRoute({
      method: 'get',
      path: '/v1/x',
      tag: 't',
      summary: 's',
      responses: { 200: { description: 'd', json: 'Nope' } },
    })
    expect(() => buildOpenApiDocument([...API_ROUTES, orphan], { auth: false })).toThrow(/no schema named Nope/)
    expect(() => buildOpenApiDocument([...API_ROUTES, API_ROUTES[0]!], { auth: false })).toThrow(/GET \/healthz is described twice/)
  })
})

/**
 * On Workers (workerd through Miniflare) every Durable Object would count only itself, so
 * /metrics is a 404 problem saying so; /openapi.json is served as on Node and Deno, without a token.
 * Covers: src/http/metrics-route.ts, src/http/openapi/route.ts, worker/index.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Running, startWorker } from '../../support/runtimes.ts'

describe('Workers: /metrics and /openapi.json', () => {
  let worker: Running
  beforeAll(async () => {
    worker = await startWorker({ EVALSTREAM_TOKENS: `acme:${'w'.repeat(32)}` })
  })
  afterAll(() => worker?.stop())

  it('answers /metrics with a problem naming the reason, and serves the OpenAPI document publicly', async () => {
    const metrics = await fetch(`${worker.baseUrl}/metrics`)
    expect(metrics.status).toBe(404)
    expect(metrics.headers.get('content-type')).toBe('application/problem+json')
    expect(((await metrics.json()) as { detail: string }).detail).toContain('Durable Object')
    const doc = await fetch(`${worker.baseUrl}/openapi.json`)
    expect(doc.status).toBe(200)
    const body = (await doc.json()) as { openapi: string; security: unknown }
    expect(body.openapi).toBe('3.1.0')
    expect(body.security).toEqual([{ bearerAuth: [] }])
  })
})

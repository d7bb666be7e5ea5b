/**
 * The table of failure codes is total and consistent: every code has an HTTP error status, the
 * problem type every other code of that status has (today's types, so clients that branch on
 * `type` see no change), and a Prometheus label no other code has. A problem value and its
 * problem+json body take their status and type from the code alone.
 * Covers: src/engine/failure-codes.ts, src/engine/problem.ts, src/http/problem.ts.
 */
import { STATUS_CODES } from 'node:http'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { FAILURE_CODES, type FailureCode, failureLabel, FAILURES, failureStatus } from '../../../src/engine/failure-codes.ts'
import { failure, problemOf } from '../../../src/engine/problem.ts'
import { problem, problemResponse, problemType } from '../../../src/http/problem.ts'

/** The problem type of each status as the API answered before failures had codes: the wire contract. */
const TYPE_OF_STATUS: Record<number, string> = {
  400: 'bad-request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  409: 'conflict',
  410: 'gone',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  422: 'unprocessable',
  429: 'too-many-requests',
  500: 'internal',
  502: 'bad-gateway',
  503: 'unavailable',
  504: 'gateway-timeout',
}

describe('the failure code table', () => {
  it('is total: every code has a status, a type and a label', () => {
    expect(FAILURE_CODES.length).toBeGreaterThan(30)
    for (const code of FAILURE_CODES) {
      const spec = FAILURES[code]
      expect(Object.keys(spec).sort(), code).toEqual(['label', 'status', 'type'])
      expect(code, 'a code is snake_case').toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/)
      expect(spec.type, code).toMatch(/^[a-z]+(-[a-z]+)*$/)
      expect(spec.label, code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/)
    }
  })

  it('gives every code an HTTP error status (a named 4xx or 5xx)', () => {
    for (const code of FAILURE_CODES) {
      const status = failureStatus(code)
      expect(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: ${status}`).toBe(true)
      expect(STATUS_CODES[status], `${code}: ${status}`).toBeDefined()
    }
  })

  it("keeps each status's problem type as it was, so a type still tells the status", () => {
    for (const code of FAILURE_CODES) {
      const { status, type } = FAILURES[code]
      expect(type, `${code} (${status})`).toBe(TYPE_OF_STATUS[status])
    }
  })

  it('gives no two codes one label, so a metric tells every failure apart', () => {
    const byLabel = new Map<string, FailureCode[]>()
    for (const code of FAILURE_CODES) byLabel.set(failureLabel(code), [...(byLabel.get(failureLabel(code)) ?? []), code])
    expect([...byLabel].filter(([, codes]) => codes.length > 1)).toEqual([])
  })

  it('keeps the labels evalstream_event_uploads_refused_total had before codes', () => {
    const labels = {
      unsupported_format: 'unsupported_format',
      session_ended: 'session_ended',
      request_too_large: 'too_large',
      session_full: 'session_full',
      broken_body: 'broken_body',
      internal: 'internal_error',
      session_byte_budget: 'session_bytes',
      process_byte_budget: 'process_bytes',
    } satisfies Partial<Record<FailureCode, string>>
    for (const [code, label] of Object.entries(labels)) expect(failureLabel(code as FailureCode), code).toBe(label)
  })
})

describe('a problem takes its status and type from its code', () => {
  it('as a value', () => {
    expect(failure('session_full', 'Session event limit reached', 'd')).toEqual({
      ok: false,
      problem: { code: 'session_full', status: 422, title: 'Session event limit reached', detail: 'd' },
    })
    expect(problemOf('process_byte_budget', 't', 'd', { retryAfterS: 10 })).toMatchObject({ status: 503, retryAfterS: 10 })
  })

  it('as problem+json, from a route and outside one', async () => {
    const app = new Hono()
    app.get('/by-code', (c) => problem(c, 'session_byte_budget', 'Session byte budget reached', 'd', { limit: { name: 'L', value: 1 } }))
    app.get('/by-value', (c) => problem(c, problemOf('at_capacity', 'Server at capacity', 'd', { retryAfterS: 3 })))
    const byCode = await app.request('/by-code')
    expect(byCode.status).toBe(413)
    expect(byCode.headers.get('content-type')).toBe('application/problem+json')
    expect(await byCode.json()).toEqual({
      type: 'https://evalstream.dev/problems/payload-too-large',
      title: 'Session byte budget reached',
      status: 413,
      detail: 'd',
      instance: '/by-code',
      limit: { name: 'L', value: 1 },
    })
    const byValue = await app.request('/by-value')
    expect([byValue.status, byValue.headers.get('retry-after')]).toEqual([503, '3'])
    expect(await byValue.json()).toMatchObject({ type: problemType('at_capacity'), status: 503 })

    const outside = problemResponse(problemOf('misconfigured', 'Misconfigured deployment', 'd'))
    expect(await outside.json()).toEqual({
      type: 'https://evalstream.dev/problems/internal',
      title: 'Misconfigured deployment',
      status: 500,
      detail: 'd',
    })
  })
})

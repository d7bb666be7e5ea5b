/**
 * No exporter can flood, stall or starve another: the sessions OTLP opens are capped per request
 * and per tenant (partial success naming the limit, nothing evicted), traces with nothing to score
 * open none (counted), a slow upload holds no decode slot, a tenant holds at most its share of the
 * slots and of the bytes in flight, inflated bodies are charged to the process budget, and a large
 * request is assembled in slices with the event loop given back between them. In process; every
 * deadline is moved by hand, nothing waits on the wall clock.
 * Covers: src/http/otlp-intake.ts, src/http/otlp-routes.ts, src/otlp-monitor/monitor.ts, src/otlp-monitor/held-bytes.ts.
 */
import { gzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { otlpRoute } from '../../../src/http/otlp-routes.ts'
import { requireToken } from '../../../src/http/auth.ts'
import {
  createOtlpMonitor,
  OTLP_ITEMS_MEASURED_PER_SLICE,
  OTLP_ITEMS_PER_SLICE,
  OTLP_UPDATES_PER_SLICE,
  type OtlpIngestOutcome,
} from '../../../src/otlp-monitor/monitor.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { heldBytes, measureItems } from '../../../src/otlp-monitor/held-bytes.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { DEFAULT_ASSEMBLER_LIMITS, type OtlpSpan } from '../../../src/otlp/index.ts'
import { manualDeadlines } from '../../support/manual-deadlines.ts'
import { TOKENS, TWO_TENANTS_ENV } from '../support/two-tenants.ts'
import { fixtureText } from './support/fixtures.ts'
import { fixtureRequests, receiverApp } from './support/receiver-app.ts'

type Tenant = keyof typeof TOKENS
const MiB = 1024 * 1024
const METRICS_TOKEN = 'metrics-token-0123456789abcdef0123456789'
const LINES = fixtureRequests(fixtureText('adk-js.jsonl'))
const as = (tenant: Tenant, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  authorization: `Bearer ${TOKENS[tenant]}`,
  ...extra,
})
type Body = { resourceSpans: Array<{ resource: unknown; scopeSpans: Array<{ scope?: unknown; spans: Array<Record<string, unknown>> }> }> }

/** The ADK JS fixture's two turns as conversation `n`: fresh trace ids and conversation id, same spans. */
function conversation(n: number): Body[] {
  const hex = n.toString(16).padStart(8, '0')
  return LINES.map((l) => JSON.parse(l.replaceAll('"traceId":"00000001', `"traceId":"${hex}`).replaceAll('session-js', `conv-${n}`)))
}
/** Every span of the given requests in one request. */
function oneRequest(bodies: Body[]): string {
  const spans = bodies.flatMap((b) => b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)))
  return JSON.stringify({ resourceSpans: [{ resource: bodies[0]!.resourceSpans[0]!.resource, scopeSpans: [{ spans }] }] })
}
const spanCount = (bodies: Body[]) =>
  bodies.reduce((n, b) => n + b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).length, 0)
/** A root span (it completes its trace on arrival) with nothing in it. */
const SPAN: Omit<OtlpSpan, 'traceId' | 'spanId'> = {
  parentSpanId: '',
  name: 'work',
  startMs: 1_763_976_000_000,
  endMs: 1_763_976_000_500,
  statusCode: 0,
  statusMessage: '',
  attributes: {},
  resource: {},
  scope: '',
}
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe('sessions opened by OTLP', () => {
  it('one request opens at most EVALSTREAM_OTLP_MAX_NEW_SESSIONS_PER_REQUEST; the rest is partial success naming it', async () => {
    const r = receiverApp({ env: { EVALSTREAM_OTLP_MAX_NEW_SESSIONS_PER_REQUEST: '3' }, metrics: true })
    const res = await r.post('/v1/traces', oneRequest(range(1, 10).flatMap(conversation)))
    expect(res.status).toBe(200)
    const body = (await res.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } }
    // Conversations 4-10 (both their turns) were refused; 1-3 scored both turns.
    expect(body.partialSuccess.rejectedSpans).toBe(String(spanCount(range(4, 10).flatMap(conversation))))
    expect(body.partialSuccess.errorMessage).toMatch(
      /^14 trace\(s\) .*already opened 3 conversation sessions \(EVALSTREAM_OTLP_MAX_NEW_SESSIONS_PER_REQUEST\)/,
    )
    for (const n of range(1, 10)) {
      const session = await r.deps.store.get(`otlp-conv-${n}`, r.deps.createEngine)
      expect([n, session?.invocationCount]).toEqual([n, n <= 3 ? 2 : undefined])
    }
    const metrics = await (await r.app.request('/metrics')).text()
    expect(metrics).toContain('evalstream_otlp_traces_dropped_total{reason="request_session_cap"} 14')
    // The next request has its own allowance.
    const next = await r.post('/v1/traces', oneRequest(conversation(4)))
    expect(await next.json()).toEqual({})
  })

  it("a tenant past EVALSTREAM_OTLP_MAX_SESSIONS_PER_TENANT is refused new conversations; other tenants' sessions are untouched", async () => {
    const r = receiverApp({ env: { ...(TWO_TENANTS_ENV as Record<string, string>), EVALSTREAM_OTLP_MAX_SESSIONS_PER_TENANT: '2' } })
    expect((await r.post('/v1/sessions', JSON.stringify({ session_id: 'acme:pushed' }), as('acme'))).status).toBe(201)
    expect((await r.post('/v1/traces', oneRequest(conversation(1)), as('acme'))).status).toBe(200)
    const answers: unknown[] = []
    for (const n of range(11, 15)) answers.push(await (await r.post('/v1/traces', oneRequest(conversation(n)), as('globex'))).json())
    expect(answers.slice(0, 2)).toEqual([{}, {}])
    for (const answer of answers.slice(2)) {
      expect(answer).toMatchObject({
        partialSuccess: {
          errorMessage: expect.stringContaining(
            '2 monitored conversations are open for this tenant (EVALSTREAM_OTLP_MAX_SESSIONS_PER_TENANT = 2)',
          ),
        },
      })
    }
    expect(await r.deps.store.get('globex:otlp-conv-13', r.deps.createEngine)).toBeUndefined()
    // Acme's pushed session and its conversation are where they were, and acme still opens new ones.
    expect(await r.deps.store.get('acme:pushed', r.deps.createEngine)).toBeDefined()
    expect((await r.deps.store.get('acme:otlp-conv-1', r.deps.createEngine))?.invocationCount).toBe(2)
    expect(await (await r.post('/v1/traces', oneRequest(conversation(2)), as('acme'))).json()).toEqual({})
  })

  it('traces with no conversation id and no user message open no session, are counted, and log one line per batch past five', async () => {
    const logged: string[] = []
    const store = memorySessionStore({ sweeper: 'manual' })
    const dropped: string[] = []
    const monitor = createOtlpMonitor({
      store,
      createEngine: (o) => createSessionEngine(o),
      appConfig: () => ({ eval_config: { criteria: {} } }),
      assemblerLimits: DEFAULT_ASSEMBLER_LIMITS,
      dropped: (reason) => void dropped.push(reason),
      log: (m) => void logged.push(m),
    })
    const hex = (n: number, w: number) => n.toString(16).padStart(w, '0')
    const response = JSON.stringify({ content: { role: 'model', parts: [{ text: 'ok' }] } })
    // Each trace a lone root call_llm with a model response: no conversation, no user message.
    const spans = range(1, 40).map((i) => ({
      traceId: hex(i, 32),
      spanId: hex(i, 16),
      ...SPAN,
      name: 'call_llm',
      attributes: { 'gcp.vertex.agent.llm_response': response },
    }))
    const outcome = await monitor.addSpans(undefined, spans)
    expect(outcome.invocations).toBe(0)
    expect(store.stats?.().open).toBe(0)
    expect(dropped).toEqual(Array(40).fill('nothing_to_score'))
    expect(logged).toHaveLength(6)
    expect(logged[5]).toBe('evalstream: OTLP and 35 more traces dropped in this batch (evalstream_otlp_traces_dropped_total)')
  })

  it('a large request is assembled and pushed in slices, the event loop given back between them', async () => {
    let pauses = 0
    const monitor = createOtlpMonitor({
      store: memorySessionStore({ sweeper: 'manual' }),
      createEngine: (o) => createSessionEngine(o),
      appConfig: () => ({ eval_config: { criteria: {} } }),
      assemblerLimits: DEFAULT_ASSEMBLER_LIMITS,
      pause: async () => void (pauses += 1),
      // A clock that does not move (as on deployed Workers): only the counts end a slice.
      sliceClock: () => 0,
      log: () => {},
    })
    const hex = (n: number, w: number) => n.toString(16).padStart(w, '0')
    const spans = range(1, 1_200).map((i) => ({
      traceId: hex(i, 32),
      spanId: hex(i, 16),
      ...SPAN,
    }))
    const outcome: OtlpIngestOutcome = await monitor.addSpans(undefined, spans)
    // Between slices of OTLP_ITEMS_MEASURED_PER_SLICE spans sized, between slices of
    // OTLP_ITEMS_PER_SLICE spans assembled, and within those every OTLP_UPDATES_PER_SLICE traces pushed.
    const measured = Math.ceil(1_200 / OTLP_ITEMS_MEASURED_PER_SLICE)
    const slices = 1_200 / OTLP_ITEMS_PER_SLICE
    expect(pauses).toBe(measured - 1 + slices - 1 + slices * Math.ceil(OTLP_ITEMS_PER_SLICE / OTLP_UPDATES_PER_SLICE - 1))
    expect(outcome.traces).toBe(1_200)
  })

  it('pushes into sessions end their turn once it has run MAX_TURN_SLICE_MS by the slice clock, before OTLP_UPDATES_PER_SLICE', async () => {
    // The clock counts work: each delivery (opening a session, feeding it) costs 2 of its "ms".
    const PUSH_COST = 2
    const SLICE = 5
    let work = 0
    let turn = 0
    const perTurn: number[] = [0]
    const monitor = createOtlpMonitor({
      store: memorySessionStore({ sweeper: 'manual' }),
      createEngine: (o) => createSessionEngine(o),
      appConfig: () => ({ eval_config: { criteria: {} } }),
      assemblerLimits: DEFAULT_ASSEMBLER_LIMITS,
      sessionCaps: { maxNewSessionsPerRequest: 1_000, maxSessionsPerTenant: 1_000 },
      delivery: {
        invocation: async () => {
          work += PUSH_COST
          perTurn[turn] = (perTurn[turn] ?? 0) + 1
          return undefined
        },
        end: async () => {},
      },
      pause: async () => void (perTurn[++turn] = 0),
      sliceClock: () => work,
      sliceMs: SLICE,
      log: () => {},
    })
    const hex = (n: number, w: number) => n.toString(16).padStart(w, '0')
    const request = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'What is the weather?' }] }] })
    // Each span a whole trace (a root call_llm with the user's message) of its own conversation.
    const spans = range(1, 200).map((i) => ({
      traceId: hex(i, 32),
      spanId: hex(i, 16),
      ...SPAN,
      name: 'call_llm',
      attributes: { 'gcp.vertex.agent.llm_request': request, 'gen_ai.conversation.id': `c${i}` },
    }))
    const outcome = await monitor.addSpans(undefined, spans)
    expect(outcome.invocations).toBe(200)
    // A turn's pushes stop once it has run SLICE: the push that passes it is the last.
    expect(Math.max(...perTurn)).toBe(Math.ceil(SLICE / PUSH_COST))
    expect(Math.ceil(SLICE / PUSH_COST)).toBeLessThan(OTLP_UPDATES_PER_SLICE)
    expect(perTurn.reduce((a, b) => a + b, 0)).toBe(200)
  })
})

/** A body that sends `first` and then nothing, until cancelled. */
function drip(first: string): { body: ReadableStream<Uint8Array>; cancelled: Promise<void> } {
  let cancelled!: () => void
  const done = new Promise<void>((resolve) => (cancelled = resolve))
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first))
    },
    cancel: () => cancelled(),
  })
  return { body, cancelled: done }
}

describe('what one OTLP request may hold', () => {
  it('slow uploads hold no decode slot, and are answered 408 at EVALSTREAM_OTLP_BODY_TIMEOUT_MS', async () => {
    const deadlines = manualDeadlines()
    const env = { ...(TWO_TENANTS_ENV as Record<string, string>), EVALSTREAM_METRICS_TOKEN: METRICS_TOKEN }
    const r = receiverApp({ env, deps: { otlpDeadline: deadlines.timer }, metrics: true })
    // More slow uploads than there are decode slots (32), from one tenant.
    const drips = range(1, 40).map(() => drip('{"resourceSpans":['))
    const slow = drips.map(({ body }) =>
      r.app.request('/v1/traces', { method: 'POST', body, headers: as('globex'), duplex: 'half' } as RequestInit)
    )
    // Meanwhile both tenants' exporters are served.
    expect(await (await r.post('/v1/traces', oneRequest(conversation(1)), as('acme'))).json()).toEqual({})
    expect(await (await r.post('/v1/traces', oneRequest(conversation(2)), as('globex'))).json()).toEqual({})
    deadlines.pass()
    for (const res of await Promise.all(slow)) {
      expect(res.status).toBe(408)
      expect(((await res.json()) as { message: string }).message).toContain('EVALSTREAM_OTLP_BODY_TIMEOUT_MS')
    }
    await Promise.all(drips.map((d) => d.cancelled))
    const metrics = await r.app.request('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    expect(await metrics.text()).toContain('evalstream_otlp_requests_refused_total{reason="body_deadline"} 40')
  })

  it("a tenant holds at most EVALSTREAM_OTLP_CONCURRENCY_PER_TENANT decode slots; another tenant's requests still get theirs", async () => {
    const r = receiverApp({ env: TWO_TENANTS_ENV as Record<string, string> })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const held: OtlpIngestOutcome = { traces: 0, invocations: 0, dropped: [], refused: [] }
    const monitor = { ...r.monitor, addSpans: async () => (await gate, held) }
    const app = new Hono()
    app.use('*', requireToken(r.deps.auth!))
    app.post('/v1/traces', otlpRoute('traces', { monitor, limits: r.deps.otlp!.limits, maxConcurrentPerTenant: 2 }))
    const post = (tenant: Tenant) => app.request('/v1/traces', { method: 'POST', body: '{}', headers: as(tenant) })
    const waiting = [post('globex'), post('globex')]
    await new Promise((resolve) => setTimeout(resolve, 0))
    const third = await post('globex')
    expect(third.status).toBe(429)
    expect(third.headers.get('retry-after')).toBe('1')
    expect(((await third.json()) as { message: string }).message).toContain('EVALSTREAM_OTLP_CONCURRENCY_PER_TENANT')
    const other = post('acme')
    release()
    expect((await other).status).toBe(200)
    for (const res of await Promise.all(waiting)) expect(res.status).toBe(200)
  })

  it('while the loop is behind, a tenant with a request in progress is told to come back (503); others are served', async () => {
    const r = receiverApp({ env: TWO_TENANTS_ENV as Record<string, string> })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const held: OtlpIngestOutcome = { traces: 0, invocations: 0, dropped: [], refused: [] }
    const monitor = { ...r.monitor, addSpans: async (tenant: string | undefined) => (tenant === 'globex' && (await gate), held) }
    const behind = () => ({ retryAfterS: 3, measuredMs: 900, busyShare: 0.95, limitMs: 250, variable: 'EVALSTREAM_ADMISSION_LAG_MS' })
    const app = new Hono()
    app.use('*', requireToken(r.deps.auth!))
    app.post('/v1/traces', otlpRoute('traces', { monitor, limits: r.deps.otlp!.limits }, { admission: behind }))
    const post = (tenant: Tenant) => app.request('/v1/traces', { method: 'POST', body: '{}', headers: as(tenant) })
    const first = post('globex')
    await new Promise((resolve) => setTimeout(resolve, 0))
    const second = await post('globex')
    expect([second.status, second.headers.get('retry-after')]).toEqual([503, '3'])
    expect(((await second.json()) as { message: string }).message).toContain(
      'EVALSTREAM_ADMISSION_LAG_MS) and this tenant has 1 OTLP request(s) in progress',
    )
    expect((await post('acme')).status).toBe(200)
    release()
    expect((await first).status).toBe(200)
  })

  it('inflated bytes count against EVALSTREAM_OTLP_MAX_TENANT_BYTES while inflating (429 beside other requests, 413 alone)', async () => {
    const deadlines = manualDeadlines()
    const env = { ...(TWO_TENANTS_ENV as Record<string, string>), EVALSTREAM_OTLP_MAX_TENANT_BYTES: String(3 * MiB) }
    const r = receiverApp({ env, deps: { otlpDeadline: deadlines.timer } })
    const gzipped = (bytes: number) => gzipSync(Buffer.alloc(bytes, ' '))
    const gz = (tenant: Tenant) => as(tenant, { 'content-encoding': 'gzip' })
    // One of globex's uploads holds 2 MiB and has not finished.
    const slow = drip(`{"resourceSpans":[${' '.repeat(2 * MiB)}`)
    const held = r.app.request('/v1/traces', { method: 'POST', body: slow.body, headers: as('globex'), duplex: 'half' } as RequestInit)
    await new Promise((resolve) => setTimeout(resolve, 0))
    const beside = await r.post('/v1/traces', gzipped(2 * MiB), gz('globex'))
    expect([beside.status, beside.headers.get('retry-after')]).toEqual([429, '2'])
    expect(((await beside.json()) as { message: string }).message).toContain(`EVALSTREAM_OTLP_MAX_TENANT_BYTES (${3 * MiB})`)
    // Acme's share is its own.
    expect((await r.post('/v1/traces', gzipped(2 * MiB), gz('acme'))).status).toBe(400) // spaces are not JSON: decoded, not refused
    // Alone past the share: retrying cannot help, so 413.
    const alone = await r.post('/v1/traces', gzipped(4 * MiB), gz('acme'))
    expect([alone.status, alone.headers.get('retry-after')]).toEqual([413, null])
    expect(((await alone.json()) as { message: string }).message).toContain('holds more than EVALSTREAM_OTLP_MAX_TENANT_BYTES')
    deadlines.pass()
    expect((await held).status).toBe(408)
    // Every request answered: nothing stays charged.
    expect(r.deps.store.bytes!.used).toBe(0)
  })

  it('bodies in flight are charged to EVALSTREAM_MAX_PROCESS_BYTES: 503 with Retry-After when it is full, no session evicted', async () => {
    const deadlines = manualDeadlines()
    const env = { ...(TWO_TENANTS_ENV as Record<string, string>), EVALSTREAM_MAX_PROCESS_BYTES: String(MiB) }
    const r = receiverApp({ env, deps: { otlpDeadline: deadlines.timer } })
    expect((await r.post('/v1/sessions', JSON.stringify({ session_id: 'acme:kept' }), as('acme'))).status).toBe(201)
    const before = r.deps.store.bytes!.used
    // Acme's unfinished upload holds 600 KB of the budget.
    const slow = drip(`{"resourceSpans":[${' '.repeat(600_000)}`)
    const held = r.app.request('/v1/traces', { method: 'POST', body: slow.body, headers: as('acme'), duplex: 'half' } as RequestInit)
    await new Promise((resolve) => setTimeout(resolve, 0))
    const res = await r.post('/v1/traces', gzipSync(Buffer.alloc(600_000, ' ')), as('globex', { 'content-encoding': 'gzip' }))
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '2'])
    expect(((await res.json()) as { message: string }).message).toMatch(/memory budget is full .*EVALSTREAM_MAX_PROCESS_BYTES/)
    deadlines.pass()
    expect((await held).status).toBe(408)
    expect(r.deps.store.bytes!.used).toBe(before)
    expect(await r.deps.store.get('acme:kept', r.deps.createEngine)).toBeDefined()
  })

  it('a zip bomb past EVALSTREAM_OTLP_MAX_DECOMPRESSED_BYTES is still 413, and gives back what it held', async () => {
    const r = receiverApp({ env: { EVALSTREAM_OTLP_MAX_DECOMPRESSED_BYTES: String(1024 * 1024) } })
    const res = await r.post('/v1/traces', gzipSync(Buffer.alloc(4 * 1024 * 1024, ' ')), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    })
    expect(res.status).toBe(413)
    expect(((await res.json()) as { message: string }).message).toContain('EVALSTREAM_OTLP_MAX_DECOMPRESSED_BYTES')
    expect(r.deps.store.bytes!.used).toBe(0)
  })

  it('spans the assembler holds count against EVALSTREAM_OTLP_MAX_TENANT_HELD_BYTES until the trace is let go', async () => {
    const r = receiverApp({
      env: { ...(TWO_TENANTS_ENV as Record<string, string>), EVALSTREAM_OTLP_MAX_TENANT_HELD_BYTES: String(2_500_000) },
    })
    const answers: Response[] = []
    for (const n of range(1, 3)) answers.push(await r.post('/v1/traces', openTrace(n), as('globex')))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429])
    expect(answers[2]!.headers.get('retry-after')).toBe('5')
    expect(((await answers[2]!.json()) as { message: string }).message).toContain('EVALSTREAM_OTLP_MAX_TENANT_HELD_BYTES (2500000)')
    // Another tenant holds its own share.
    expect((await r.post('/v1/traces', openTrace(4), as('acme'))).status).toBe(200)
    // Completed at their grace, the traces are kept for late spans, then let go.
    r.clock.now += 6_000
    await r.monitor.tick()
    expect((await r.post('/v1/traces', openTrace(5), as('globex'))).status).toBe(429)
    r.clock.now += 60_000
    await r.monitor.tick()
    expect((await r.post('/v1/traces', openTrace(6), as('globex'))).status).toBe(200)
  })

  it('and against the process byte budget: 503 with Retry-After when it is full', async () => {
    // Each request holds its body while it is handled (0.9 MB) and leaves its span held (0.9 MB).
    const r = receiverApp({ env: { EVALSTREAM_MAX_PROCESS_BYTES: String(3_500_000) } })
    const statuses: number[] = []
    for (const n of range(1, 3)) statuses.push((await r.post('/v1/traces', openTrace(n))).status)
    expect(statuses).toEqual([200, 200, 503])
    r.clock.now += 66_000
    await r.monitor.tick()
    expect(r.deps.store.bytes!.used).toBe(0)
  })
})

describe("a flood's held bytes are noted and swept a slice at a time", () => {
  const spans = (from: number, count: number) =>
    range(from, from + count - 1).map((i) => ({ traceId: i.toString(16).padStart(32, '0'), name: 'work', attributes: { a: 'x' } }))

  it("hold notes only the given items' traces (each once), and the tenant's total counts the whole request at once", () => {
    const clock = { now: 0 }
    const held = heldBytes(1 << 30, undefined, DEFAULT_ASSEMBLER_LIMITS, () => clock.now)
    const items = spans(1, 100) as unknown as OtlpSpan[]
    const sizes = measureItems(items, { byTrace: new Map(), total: 0 })
    const total = sizes.total
    expect(held.charge('t', sizes)).toBeUndefined()
    expect(held.held('t')).toBe(total)
    held.hold('t', items.slice(0, OTLP_ITEMS_PER_SLICE), sizes)
    expect(sizes.byTrace.size).toBe(100 - OTLP_ITEMS_PER_SLICE)
    held.hold('t', items.slice(0, OTLP_ITEMS_PER_SLICE), sizes) // already noted: nothing again
    expect(sizes.byTrace.size).toBe(100 - OTLP_ITEMS_PER_SLICE)
    // Past the grace, the noted traces are let go; the rest of the request still counts.
    clock.now = DEFAULT_ASSEMBLER_LIMITS.graceMs
    held.sweep()
    expect(held.held('t')).toBe(total - (total / 100) * OTLP_ITEMS_PER_SLICE)
    held.hold('t', items.slice(OTLP_ITEMS_PER_SLICE), sizes)
    clock.now *= 2
    held.sweep()
    expect(held.held('t')).toBe(0)
  })

  it('sweepSteps yields after every `per` traces looked at, and ends having let go of all that were due', () => {
    const clock = { now: 0 }
    const held = heldBytes(1 << 30, undefined, DEFAULT_ASSEMBLER_LIMITS, () => clock.now)
    const items = spans(1, 2_500) as unknown as OtlpSpan[]
    const sizes = measureItems(items, { byTrace: new Map(), total: 0 })
    held.charge('t', sizes)
    held.hold('t', items, sizes)
    clock.now = DEFAULT_ASSEMBLER_LIMITS.graceMs
    let steps = 0
    for (const _ of held.sweepSteps(OTLP_ITEMS_MEASURED_PER_SLICE)) steps++
    expect(steps).toBe(Math.floor(2_500 / OTLP_ITEMS_MEASURED_PER_SLICE))
    expect(held.held('t')).toBe(0)
  })

  it("the monitor's tick sweeps the held traces OTLP_ITEMS_MEASURED_PER_SLICE to a turn", async () => {
    let pauses = 0
    const clock = { now: 0 }
    const monitor = createOtlpMonitor({
      store: memorySessionStore({ sweeper: 'manual' }),
      createEngine: (o) => createSessionEngine(o),
      appConfig: () => ({ eval_config: { criteria: {} } }),
      assemblerLimits: { ...DEFAULT_ASSEMBLER_LIMITS, maxOpenTraces: 10_000 },
      pause: async () => void (pauses += 1),
      sliceClock: () => 0,
      now: () => clock.now,
      log: () => {},
    })
    const hex = (n: number, w: number) => n.toString(16).padStart(w, '0')
    // Root-less spans: their traces stay open (and held) until their grace.
    const open = range(1, 2_500).map((i) => ({ traceId: hex(i, 32), spanId: hex(i, 16), ...SPAN, parentSpanId: hex(0xffff, 16) }))
    await monitor.addSpans(undefined, open)
    pauses = 0
    await monitor.tick() // nothing due: only the sweep's turns
    expect(pauses).toBe(Math.floor(2_500 / OTLP_ITEMS_MEASURED_PER_SLICE))
  })
})

/** One child span (its trace stays open) carrying a 900,000-character attribute. */
function openTrace(n: number): string {
  const hex = (v: number, w: number) => v.toString(16).padStart(w, '0')
  const span = {
    traceId: hex(n, 32),
    spanId: hex(n, 16),
    parentSpanId: hex(0xffff, 16),
    name: 'work',
    startTimeUnixNano: '1763976100000000000',
    endTimeUnixNano: '1763976100500000000',
    attributes: [{ key: 'big', value: { stringValue: 'x'.repeat(900_000) } }],
  }
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [span] }] }] })
}

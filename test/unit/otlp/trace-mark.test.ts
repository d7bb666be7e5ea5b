/**
 * Only the server marks traces: an event sent by a client (events upload) or an agent (a proxied
 * /run_sse frame) that carries `evalstream_trace` is rejected with its index and the key, and no
 * verdict goes out on the trace it names; the `otlp-` session namespace is the monitor's alone.
 */
import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { DEFAULT_LIMITS } from '../../../src/ingest/index.ts'
import { countedTarget, feedSession, FORGED_MARK } from '../../../src/session/feed.ts'
import { createTraceLinks, TRACE_MARK_KEY } from '../../../src/otlp/trace-mark.ts'
import { tracedEngines } from '../../../src/otlp-monitor/traced-engine.ts'
import { isOtlpSessionId } from '../../../src/otlp/session-id.ts'
import { TOKENS, TWO_TENANTS_ENV } from '../support/two-tenants.ts'
import { fixtureText } from './support/fixtures.ts'
import { fixtureRequests, receiverApp } from './support/receiver-app.ts'

const as = (tenant: keyof typeof TOKENS) => ({ 'content-type': 'application/json', authorization: `Bearer ${TOKENS[tenant]}` })
const ACME_TRACE = '000000016e2a96880000000000000002'
const forgedMark = { trace_id: ACME_TRACE, root_span_id: '0000000003000001', tool_span_ids: [], start_ms: 0, end_ms: 1e15, unscorable: {} }
const event = (extra: Record<string, unknown> = {}) => ({
  invocation_id: 'e-1',
  author: 'weather_agent',
  content: { role: 'model', parts: [{ text: 'It is sunny.' }] },
  ...extra,
})

describe('the trace mark', () => {
  it("is refused on a tenant's pushed events, and nothing goes out on another tenant's trace", async () => {
    const r = receiverApp({ env: TWO_TENANTS_ENV as Record<string, string> })
    for (const line of fixtureRequests(fixtureText('adk-js.jsonl'))) expect((await r.post('/v1/traces', line, as('acme'))).status).toBe(200)
    await r.deps.exporters!.idle()
    const before = r.collected.length

    const created = await r.post('/v1/sessions', JSON.stringify({ session_id: 'globex:mine' }), as('globex'))
    expect(created.status).toBe(201)
    const body = [event({ [TRACE_MARK_KEY]: forgedMark }), event({ id: 'plain' })].map((e) => JSON.stringify(e)).join('\n')
    const pushed = await r.post('/v1/sessions/globex:mine/events', body, { ...as('globex'), 'content-type': 'application/x-ndjson' })
    expect(pushed.status).toBe(202)
    const summary = (await pushed.json()) as { accepted: number; rejected: Array<{ index: number; message: string; path?: string }> }
    expect(summary.accepted).toBe(1)
    expect(summary.rejected).toEqual([{ index: 0, message: FORGED_MARK, path: '$.evalstream_trace' }])
    expect((await r.post('/v1/sessions/globex:mine/end', '', as('globex'))).status).toBe(200)
    await r.deps.exporters!.idle()
    // Globex's verdicts go out without acme's trace, or anyone's.
    const onTraces = r.collected.slice(before).filter((l) => l.traceId)
    expect(onTraces).toEqual([])
    expect(r.collected.length).toBeGreaterThan(before)
  })

  it("is refused on an agent's /run_sse frames (the decoded-body path every client input takes)", () => {
    const engine = createSessionEngine({ spec: { session_id: 'p', eval_config: { criteria: {} } }, emit: () => {} })
    if (!engine.ok) throw new Error('engine')
    const rejected: Array<{ index: number; path?: string }> = []
    const target = countedTarget({ push: (i) => engine.engine.push(i), reject: (r) => void rejected.push(r) })
    const feed = feedSession(target, 'sse', DEFAULT_LIMITS)
    feed.push(`data: ${JSON.stringify(event())}\n\ndata: ${JSON.stringify(event({ [TRACE_MARK_KEY]: forgedMark }))}\n\n`)
    feed.end()
    expect(rejected.map((r) => [r.index, r.path])).toEqual([[1, '$.evalstream_trace']])
    expect(target.recordedEvents).toBe(2)
  })

  it('is read only in the sessions the monitor opens', () => {
    const links = createTraceLinks()
    const make = tracedEngines((o) => createSessionEngine(o), links)
    for (const id of ['plain', 'otlp-conv', 'acme:otlp-conv']) {
      const made = make({ spec: { session_id: id, eval_config: { criteria: {} } }, clock: () => 0, emit: () => {} })
      if (!made.ok) throw new Error('engine')
      made.engine.push({ index: 0, event: event({ [TRACE_MARK_KEY]: forgedMark }) as never, raw: {} })
    }
    expect([links.last('plain'), links.last('otlp-conv')?.trace_id, links.last('acme:otlp-conv')?.trace_id])
      .toEqual([undefined, ACME_TRACE, ACME_TRACE])
  })
})

describe('the otlp- session namespace', () => {
  it('is recognised after any tenant prefix', () => {
    expect(['otlp-x', 'acme:otlp-x', 'otlp-', 'xotlp-', 'acme:x:otlp-y', 'acme:otlpx'].map(isOtlpSessionId))
      .toEqual([true, true, true, false, false, false])
  })

  it('is refused to clients creating sessions, open mode and with tenants, with a 400 naming the rule', async () => {
    const open = receiverApp()
    const refusal = await open.post('/v1/sessions', JSON.stringify({ session_id: 'otlp-x' }))
    expect(refusal.status).toBe(400)
    const problem = (await refusal.json()) as { title: string; detail: string }
    expect(problem.detail).toMatch(/'otlp-' \(after any '<tenant>:'\) are reserved for the sessions the OTLP monitor opens/)
    expect(await open.deps.store.get('otlp-x', open.deps.createEngine)).toBeUndefined()

    const tenants = receiverApp({ env: TWO_TENANTS_ENV as Record<string, string> })
    expect((await tenants.post('/v1/sessions', JSON.stringify({ session_id: 'acme:otlp-x' }), as('acme'))).status).toBe(400)
    expect((await tenants.post('/v1/sessions', JSON.stringify({ session_id: 'acme:fine' }), as('acme'))).status).toBe(201)
  })

  it("keeps a trace of conversation x out of a client's session: the monitor's otlp-x is its own", async () => {
    const open = receiverApp()
    expect((await open.post('/v1/sessions', JSON.stringify({ session_id: 'otlp-session-js' }))).status).toBe(400)
    for (const line of fixtureRequests(fixtureText('adk-js.jsonl'))) expect((await open.post('/v1/traces', line)).status).toBe(200)
    const session = await open.deps.store.get('otlp-session-js', open.deps.createEngine)
    expect(session?.invocationCount).toBe(2)
  })
})

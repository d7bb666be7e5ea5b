/**
 * POST /v1/traces and /v1/logs in process: each recorded agent shape, posted as its exporter would,
 * becomes a session per conversation whose results equal those of the same run's ADK events posted
 * to a session, criterion by criterion; finalisation by root, grace and idle time on a fake clock;
 * the OTLP answers; verdicts exported with the scored span's trace and span ids.
 * Covers: src/http/otlp-routes.ts, src/otlp-monitor/monitor.ts, src/otlp/assembler.ts, src/otlp/response.ts.
 */
import { describe, expect, it } from 'vitest'
import { encodeTracesProtobuf } from './support/encode-protobuf.ts'
import { adkEventsNdjson } from './support/adk-events.ts'
import { fixtureText } from './support/fixtures.ts'
import { fixtureRequests, receiverApp, WEATHER_CASE, WEATHER_CONFIG } from './support/receiver-app.ts'
import { TURNS } from '../../fixtures/otlp/scenario.ts'
import type { ResultEvent } from '../../../src/engine/types.ts'

type Row = { metric: string; index: number; score: unknown; status: unknown }
const rows = (events: ResultEvent[]): Row[] =>
  events.flatMap((
    e,
  ) => (e.type === 'criterion.result'
    ? [{ metric: e.data.metric_name, index: e.data.invocation_index, score: e.data.score, status: e.data.eval_status }]
    : [])
  )

async function logOf(r: ReturnType<typeof receiverApp>, id: string): Promise<ResultEvent[]> {
  const session = await r.deps.store.get(id, r.deps.createEngine)
  if (!session) throw new Error(`no session ${id}`)
  return session.log.readAfter(0) as ResultEvent[]
}

/** The same run's ADK events posted to a session with the same config and case. */
async function eventsSessionRows(): Promise<Row[]> {
  const r = receiverApp()
  const created = await r.post(
    '/v1/sessions',
    JSON.stringify({ session_id: 'events', eval_config: WEATHER_CONFIG, eval_case: WEATHER_CASE }),
  )
  expect(created.status).toBe(201)
  expect((await r.post('/v1/sessions/events/events', adkEventsNdjson(), { 'content-type': 'application/x-ndjson' })).status).toBe(202)
  await r.post('/v1/sessions/events/end', '')
  return rows(await logOf(r, 'events'))
}

describe('OTLP receiver', () => {
  it.each([
    ['adk-js.jsonl', 'otlp-session-js'],
    ['adk-python-v1.jsonl', 'otlp-session-py-v1'],
    ['adk-go.jsonl', 'otlp-session-go'],
  ])('%s posted as its exporter sends it scores as the same run posted as ADK events', async (file, sessionId) => {
    const r = receiverApp()
    for (const line of fixtureRequests(fixtureText(file))) {
      const path = line.startsWith('{"resourceLogs"') ? '/v1/logs' : '/v1/traces'
      const response = await r.post(path, line)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({})
    }
    // Both roots arrived: both invocations are scored before the conversation ends.
    const live = rows(await logOf(r, sessionId))
    expect(live.map((x) => x.index)).toEqual(expect.arrayContaining([0, 1]))
    r.clock.now += 31 * 60 * 1000 // past EVALSTREAM_OTLP_CONVERSATION_IDLE_MS
    await r.monitor.tick()
    const log = await logOf(r, sessionId)
    expect(log.at(-1)?.type).toBe('case.result')
    // The trace knows the invocation's duration (root span end minus start); the events' arrival does not.
    const withoutDuration = (r: Row[]) => r.filter((x) => x.metric !== 'invocation_duration_v1')
    expect(withoutDuration(rows(log))).toEqual(withoutDuration(await eventsSessionRows()))
    expect(rows(log).filter((x) => x.metric === 'invocation_duration_v1').map((x) => x.score)).toEqual(TURNS.map((t) => t.rootEnd / 1000))
    expect(
      rows(log).filter((x) => ['tool_trajectory_avg_score', 'response_match_score'].includes(x.metric)).every((x) => x.status === 'PASSED'),
    ).toBe(true)
  })

  it('takes protobuf, gzip too, and answers in the request encoding', async () => {
    const r = receiverApp()
    const lines = fixtureRequests(fixtureText('adk-js.jsonl'))
    for (const line of lines) {
      const proto = encodeTracesProtobuf(JSON.parse(line))
      const gz = new Uint8Array(
        await new Response(new Blob([proto as BlobPart]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer(),
      )
      const response = await r.post('/v1/traces', gz, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('application/x-protobuf')
      expect((await response.arrayBuffer()).byteLength).toBe(0)
    }
    expect(rows(await logOf(r, 'otlp-session-js')).map((x) => x.metric)).toContain('tool_trajectory_avg_score')
  })

  it('refuses bad requests with OTLP statuses, and a bad span alone with partial success', async () => {
    const r = receiverApp({ env: { EVALSTREAM_OTLP_MAX_REQUEST_BYTES: '2000' } })
    const unsupported = await r.post('/v1/traces', 'x', { 'content-type': 'text/plain' })
    expect(unsupported.status).toBe(415)
    expect((await r.post('/v1/traces', '{not json')).status).toBe(400)
    const big = await r.post('/v1/traces', JSON.stringify({ resourceSpans: [], pad: 'x'.repeat(3000) }))
    expect(big.status).toBe(413)
    expect((await big.json()).message).toMatch(/EVALSTREAM_OTLP_MAX_REQUEST_BYTES/)
    const span = { traceId: '0'.repeat(31) + '1', spanId: 'zz', name: 'bad', startTimeUnixNano: '1', endTimeUnixNano: '2' }
    const partial = await r.post('/v1/traces', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }))
    expect(partial.status).toBe(200)
    const body = await partial.json()
    expect(body.partialSuccess.rejectedSpans).toBe('1')
    expect(body.partialSuccess.errorMessage).toMatch(/spans\[0\] \("bad"\): spanId/)
  })

  it('answers 429 with Retry-After past the concurrent request limit', async () => {
    const r = receiverApp()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const { otlpRoute } = await import('../../../src/http/otlp-routes.ts')
    const route = otlpRoute('traces', {
      monitor: { ...r.monitor, addSpans: async () => (await gate, { traces: 0, invocations: 0, dropped: [], refused: [] }) },
      limits: r.deps.otlp!.limits,
      maxConcurrent: 1,
    })
    const { Hono } = await import('hono')
    const app = new Hono().post('/v1/traces', route)
    const first = app.request('/v1/traces', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    await new Promise((resolve) => setTimeout(resolve, 0))
    const second = await app.request('/v1/traces', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    expect(second.status).toBe(429)
    expect(second.headers.get('retry-after')).toBe('1')
    release()
    expect((await first).status).toBe(200)
  })

  it('finalises a trace whose root never comes after the grace period, on the injected clock', async () => {
    const r = receiverApp({ env: { EVALSTREAM_OTLP_TRACE_GRACE_MS: '5000' } })
    const [first] = fixtureRequests(fixtureText('adk-js.jsonl')) // turn 1 without its root span
    expect((await r.post('/v1/traces', first!)).status).toBe(200)
    // Its settled pieces are scored already; the invocation is not complete until the grace runs out.
    const open = await r.deps.store.get('otlp-session-js', r.deps.createEngine)
    expect(open?.snapshot().invocations).toMatchObject([{ completed: false }])
    r.clock.now += 4999
    expect((await r.monitor.tick()).invocations).toBe(0)
    r.clock.now += 1
    expect((await r.monitor.tick()).invocations).toBe(1)
    const log = await logOf(r, 'otlp-session-js')
    expect(open?.snapshot().invocations).toMatchObject([{ completed: true }])
    expect(rows(log).find((x) => x.metric === 'tool_trajectory_avg_score')).toMatchObject({ index: 0, score: 1 })
  })

  it('writes each verdict back to the scored span of the agent trace', async () => {
    const r = receiverApp()
    for (const line of fixtureRequests(fixtureText('adk-js.jsonl'))) await r.post('/v1/traces', line)
    r.clock.now += 31 * 60 * 1000
    await r.monitor.tick()
    await r.deps.exporters!.idle()
    const results = r.collected.filter((l) => l.eventName === 'gen_ai.evaluation.result')
    const attr = (l: Record<string, any>, key: string) => l.attributes.find((a: { key: string }) => a.key === key)?.value
    const trajectory = results.filter((l) => attr(l, 'gen_ai.evaluation.name')?.stringValue === 'tool_trajectory_avg_score')
    expect(trajectory.map((l) => [l.traceId, l.spanId])).toEqual([
      ['000000016e2a96880000000000000001', '0000000003000001'],
      ['000000016e2a96880000000000000002', '0000000003010001'],
    ])
    const caseResult = results.find((l) => attr(l, 'gen_ai.evaluation.name')?.stringValue === 'evalstream.case')
    expect([caseResult?.traceId, caseResult?.spanId]).toEqual(['000000016e2a96880000000000000002', '0000000003010001'])
  })

  it('names the app from the trace when no eval case does, for /v1/results, webhooks and exports', async () => {
    const r = receiverApp({ env: { EVALSTREAM_OTLP_CONFIG: JSON.stringify({ apps: { weather_agent: { eval_config: WEATHER_CONFIG } } }) } })
    for (const line of fixtureRequests(fixtureText('adk-js.jsonl'))) await r.post('/v1/traces', line)
    await r.deps.exporters!.idle()
    const names = r.collected.map((l) => l.attributes.find((a: { key: string }) => a.key === 'evalstream.app.name')?.value?.stringValue)
    expect(names.length).toBeGreaterThan(0)
    expect(new Set(names)).toEqual(new Set(['weather_agent']))
  })
})

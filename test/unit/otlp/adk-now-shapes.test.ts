/**
 * The shapes ADK emits today (test/fixtures/otlp/adk-now, derived from the real ADK Python 2.5.0
 * recording): as files through `evalstream eval` and posted to POST /v1/traces in process, each
 * scores as the recording itself does; where content was not captured, the metrics that need it are
 * NOT_EVALUATED naming the cause and the switch, while counts, usage and duration still score.
 * Covers: src/otlp/span-readers.ts, src/otlp/trace-to-events.ts, src/otlp/content-reasons.ts, src/otlp-monitor/monitor.ts, src/monitor/results-index-query.ts.
 */
import { readFileSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runEval } from '../../../src/adapter/node/eval-command.ts'
import type { ResultEvent } from '../../../src/engine/types.ts'
import { watchResults } from '../../../src/config/results-index.ts'
import { sqliteResultsIndex } from '../../../src/monitor/results-index.ts'
import { createApp } from '../../../src/http/app.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { createSpanAssembler, decodeOtlpFile, DEFAULT_OTLP_LIMITS, tracesToConversations } from '../../../src/otlp/index.ts'
import { sharedPath } from '../../support/shared-data.ts'
import { BOUNDS, FIXTURE_DIR } from './support/fixtures.ts'
import { fixtureRequests, receiverApp } from './support/receiver-app.ts'

const DIR = join(FIXTURE_DIR, 'adk-now')
const EVALSET = join(DIR, 'math.evalset.json')
const CONFIG = join(DIR, 'math.test_config.json')
const ENV = { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '' }
const RECORDING = sharedPath('otlp-real', 'strands-adk-py-2.5.0-math-tool-call.otlp.json')
const read = (path: string) => readFileSync(path, 'utf8')
/** The recorded turn's root span: 1784995765227135000 .. 1784995768672840000 ns. */
const ROOT_SECONDS = 3.445705

type Row = { metric: string; score: unknown; status: unknown }
const evalRows = (results: Array<{ metric_name: string; score: number | null; eval_status: string }>): Row[] =>
  results.map((r) => ({ metric: r.metric_name, score: r.score, status: r.eval_status }))

async function evalFile(path: string) {
  const outcome = await runEval({ evalSetPath: EVALSET, configPath: CONFIG, eventsName: path, eventsText: read(path), env: ENV, now: 0 })
  if (!outcome.ok) throw new Error(outcome.error)
  return outcome
}

const CONTENT_ON = [
  'py-2.5.0-content-on-child.jsonl',
  'py-v2-under-http-span.jsonl',
  'go-1.44-span-only.jsonl',
  'go-1.44-event-only.jsonl',
  'go-1.44-span-and-event.jsonl',
]
const CONTENT_MISSING = [
  { file: 'go-1.44-no-content.jsonl', cause: 'off', switch: /OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY/ },
  {
    file: 'py-2.5.0-content-off-elided.jsonl',
    cause: 'elided',
    switch: /ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true \(on Vertex AI Agent Engine, AdkApp\(enable_tracing=True\)\)/,
  },
] as const

describe('evalstream eval on the shapes ADK emits today', () => {
  it('the recording itself passes the math case', async () => {
    const original = await evalFile(RECORDING)
    expect(original.passed).toBe(true)
    expect(evalRows(original.results)).toContainEqual({ metric: 'invocation_duration_v1', score: 3.446, status: 'INFORMATIONAL' })
  })

  it.each(CONTENT_ON)('%s scores as the recording does, criterion by criterion', async (file) => {
    const [original, shape] = [await evalFile(RECORDING), await evalFile(join(DIR, file))]
    expect(shape.warnings).toEqual([])
    expect(evalRows(shape.results)).toEqual(evalRows(original.results))
  })

  it.each(CONTENT_MISSING)(
    '$file: text and argument metrics NOT_EVALUATED with the switch; counts, usage, duration scored',
    async ({ file, switch: named }) => {
      const [original, shape] = [await evalFile(RECORDING), await evalFile(join(DIR, file))]
      const byMetric = (rows: Row[], metric: string) => rows.find((r) => r.metric === metric)
      for (const metric of ['tool_trajectory_avg_score', 'response_match_score']) {
        const result = shape.results.find((r) => r.metric_name === metric)
        expect(result).toMatchObject({ score: null, eval_status: 'NOT_EVALUATED', reason: expect.stringMatching(named) })
      }
      for (const metric of ['tool_call_count_v1', 'inference_call_count_v1', 'token_usage_v1', 'invocation_duration_v1']) {
        expect(byMetric(evalRows(shape.results), metric)).toEqual(byMetric(evalRows(original.results), metric))
      }
      expect(byMetric(evalRows(shape.results), 'token_usage_v1')?.score).toBe(463)
      expect(shape.warnings.join('\n')).toMatch(named)
    },
  )

  it('a conversation over the size cap: the user text is NOT named content off, and what fits still scores', async () => {
    const shape = await evalFile(join(DIR, 'go-1.44-span-size-dropped.jsonl'))
    expect(shape.warnings).toEqual([
      expect.stringMatching(/user content unknown: a content attribute was left unset for its size \(ADK leaves one over 60 KiB unset/),
    ])
    expect(shape.passed).toBe(true)
  })
})

function traceOf(file: string) {
  const decoded = decodeOtlpFile(read(join(DIR, file)), DEFAULT_OTLP_LIMITS)
  expect(decoded.issues).toEqual([])
  const conversations = tracesToConversations(decoded.spans, decoded.logs, BOUNDS)
  expect(conversations).toHaveLength(1)
  return conversations[0]!.traces[0]!
}

describe('what each shape maps to', () => {
  it.each([...CONTENT_ON, ...CONTENT_MISSING.map((c) => c.file), 'go-1.44-span-size-dropped.jsonl'])(
    "%s: the app is the root agent, the duration the ADK root's, two model calls, usage from the spans",
    (file) => {
      const trace = traceOf(file)
      expect(trace.appName).toBe('math_agent')
      expect(trace.durationMs! / 1000).toBeCloseTo(ROOT_SECONDS, 5)
      expect(trace.inferenceCount).toBe(2)
      expect(
        trace.events.filter((e) => e.usage_metadata).map((e) => e.usage_metadata?.promptTokenCount ?? e.usage_metadata?.prompt_token_count),
      )
        .toEqual([157, 222])
      expect(trace.toolCalls.map((t) => t.call.name)).toEqual(['calculator'])
    },
  )

  it('three causes stay apart: off, elided, size', () => {
    expect(traceOf('go-1.44-no-content.jsonl').missing.map((m) => [m.field, m.cause])).toEqual([
      ['user_content', 'off'],
      ['final_response', 'off'],
      ['tool_arguments', 'off'],
      ['tool_responses', 'off'],
    ])
    expect(traceOf('py-2.5.0-content-off-elided.jsonl').missing.map((m) => m.cause)).toEqual(['elided', 'elided', 'elided', 'elided'])
    expect(traceOf('go-1.44-span-size-dropped.jsonl').missing.map((m) => [m.field, m.cause])).toEqual([['user_content', 'size']])
  })

  it('under an HTTP server span, the trace completes at the workflow root and the later HTTP span changes nothing', () => {
    const lines = fixtureRequests(read(join(DIR, 'py-v2-under-http-span.jsonl')))
    const assembler = createSpanAssembler({ bounds: BOUNDS, now: () => 0 })
    const updates = lines.map((line) => assembler.addSpans(decodeOtlpFile(line, DEFAULT_OTLP_LIMITS).spans))
    expect(updates.map((u) => u.map((x) => x.completed))).toEqual([[undefined], ['root'], [undefined]])
    const [atRoot, afterHttp] = [updates[1]![0]!.trace, updates[2]![0]!.trace]
    expect(afterHttp.durationMs).toBe(atRoot.durationMs)
    expect(afterHttp.rootSpanId).toBe(atRoot.rootSpanId)
    expect(afterHttp.durationMs! / 1000).toBeCloseTo(ROOT_SECONDS, 5)
  })
})

describe('POST /v1/traces with the shapes ADK emits today', () => {
  const MATH = JSON.parse(read(EVALSET)).eval_cases[0]
  const env = {
    EVALSTREAM_OTLP_CONFIG: JSON.stringify({ apps: { math_agent: { eval_config: JSON.parse(read(CONFIG)), eval_case: MATH } } }),
  }

  async function posted(text: string): Promise<Row[]> {
    const decoded = decodeOtlpFile(text, DEFAULT_OTLP_LIMITS)
    const [conversation] = tracesToConversations(decoded.spans, decoded.logs, BOUNDS)
    const r = receiverApp({ env })
    for (const line of fixtureRequests(text)) {
      const response = await r.post(line.startsWith('{"resourceLogs"') ? '/v1/logs' : '/v1/traces', line)
      expect(response.status).toBe(200)
    }
    r.clock.now += 31 * 60 * 1000 // past the conversation's idle time: the case ends
    await r.monitor.tick()
    const session = await r.deps.store.get(`otlp-${conversation!.conversationId}`, r.deps.createEngine)
    expect(session?.spec.app_name).toBe('math_agent')
    return (session!.log.readAfter(0) as ResultEvent[]).flatMap((e) =>
      e.type === 'criterion.result' ? [{ metric: e.data.metric_name, score: e.data.score, status: e.data.eval_status }] : []
    )
  }

  it.each([...CONTENT_ON, ...CONTENT_MISSING.map((c) => c.file)])('%s scores as the recording posted the same way', async (file) => {
    const original = await posted(read(RECORDING))
    const shape = await posted(read(join(DIR, file)))
    const needsContent = (r: Row) => ['tool_trajectory_avg_score', 'response_match_score'].includes(r.metric)
    if (CONTENT_ON.includes(file)) expect(shape).toEqual(original)
    else {
      expect(shape.filter((r) => !needsContent(r))).toEqual(original.filter((r) => !needsContent(r)))
      expect(shape.filter(needsContent).map((r) => r.status)).toEqual(['NOT_EVALUATED', 'NOT_EVALUATED'])
    }
  })
})

describe('content not captured, posted one span per request', () => {
  it.each(CONTENT_MISSING.map((c) => c.file))('%s: no early verdict scores the uncaptured arguments', async (file) => {
    const MATH = JSON.parse(read(EVALSET)).eval_cases[0]
    const env = {
      EVALSTREAM_OTLP_CONFIG: JSON.stringify({ apps: { math_agent: { eval_config: JSON.parse(read(CONFIG)), eval_case: MATH } } }),
    }
    const r = receiverApp({ env })
    const text = read(join(DIR, file))
    for (const line of fixtureRequests(text)) {
      const body = JSON.parse(line)
      if (body.resourceLogs) {
        expect((await r.post('/v1/logs', line)).status).toBe(200)
        continue
      }
      // Each span alone, so the settled pieces are scored as early as they can be.
      const [resourceSpans] = body.resourceSpans
      for (const span of resourceSpans.scopeSpans[0].spans) {
        const one = { resourceSpans: [{ ...resourceSpans, scopeSpans: [{ ...resourceSpans.scopeSpans[0], spans: [span] }] }] }
        expect((await r.post('/v1/traces', JSON.stringify(one))).status).toBe(200)
      }
    }
    const decoded = decodeOtlpFile(text, DEFAULT_OTLP_LIMITS)
    const [conversation] = tracesToConversations(decoded.spans, decoded.logs, BOUNDS)
    const session = await r.deps.store.get(`otlp-${conversation!.conversationId}`, r.deps.createEngine)
    const trajectory = (session!.log.readAfter(0) as ResultEvent[]).flatMap((e) =>
      (e.type === 'criterion.progress' || e.type === 'criterion.result') && e.data.metric_name === 'tool_trajectory_avg_score'
        ? [[e.type, e.data.eval_status]]
        : []
    )
    expect(trajectory).toEqual([['criterion.result', 'NOT_EVALUATED']])
  })
})

describe('GET /v1/stats: how much of each app was scorable', () => {
  it('counts the content-off conversation as not scorable, with the reason naming the switch', async () => {
    const MATH = JSON.parse(read(EVALSET)).eval_cases[0]
    const env = {
      EVALSTREAM_OTLP_CONFIG: JSON.stringify({ apps: { math_agent: { eval_config: JSON.parse(read(CONFIG)), eval_case: MATH } } }),
    }
    const r = receiverApp({ env })
    const db = new DatabaseSync(':memory:')
    const index = sqliteResultsIndex(sqlFromDatabaseSync(db), { now: () => r.clock.now })
    const stop = watchResults(r.deps.feed!, index)
    const app = createApp({ ...r.deps, resultsIndex: index })
    for (const file of ['go-1.44-span-only.jsonl', 'go-1.44-no-content.jsonl']) {
      for (const line of fixtureRequests(read(join(DIR, file)))) {
        const path = line.startsWith('{"resourceLogs"') ? '/v1/logs' : '/v1/traces'
        expect((await app.request(path, { method: 'POST', body: line, headers: { 'content-type': 'application/json' } })).status).toBe(200)
      }
    }
    r.clock.now += 31 * 60 * 1000
    await r.monitor.tick()
    const response = await app.request('/v1/stats')
    const stats = await response.json() as { apps: unknown[] }
    stop()
    db.close()
    expect(response.status).toBe(200)
    // Per conversation: trajectory and response match; scored in one, NOT_EVALUATED in the other.
    expect(stats.apps).toEqual([{
      app: 'math_agent',
      decided: 4,
      scored: 2,
      not_evaluated: 2,
      scorable_share: 0.5,
      not_evaluated_reasons: [
        {
          reason: expect.stringMatching(
            /^final response unknown: the agent exported no message content: set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY/,
          ),
          count: 1,
        },
        {
          reason: expect.stringMatching(
            /^tool arguments unknown: the agent exported no message content: set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY/,
          ),
          count: 1,
        },
      ],
    }])
  })
})

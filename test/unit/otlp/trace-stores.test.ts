/**
 * Jaeger and Tempo exports read as OTLP: the verbatim recordings score through `evalstream eval` as
 * their OTLP/JSON conversions do, agentevals' own expectations hold on them, and a bad span is named
 * by its path in the file.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runEval } from '../../../src/adapter/node/eval-command.ts'
import { decodeOtlpFile, DEFAULT_OTLP_LIMITS, looksLikeTraceStoreExport, tracesToConversations } from '../../../src/otlp/index.ts'
import { sharedPath } from '../../support/shared-data.ts'
import { BOUNDS } from './support/fixtures.ts'

const ENV = { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '' }
const real = (name: string) => sharedPath('otlp-real', name)
const HELM_SET = real('agentevals-evalsets/eval_set_helm.json')

async function evalFile(evalSetPath: string, path: string) {
  const outcome = await runEval({ evalSetPath, eventsName: path, eventsText: readFileSync(path, 'utf8'), env: ENV, now: 0 })
  if (!outcome.ok) throw new Error(outcome.error)
  return outcome
}
const rows = (outcome: Awaited<ReturnType<typeof evalFile>>) =>
  outcome.results.map((r) => ({ metric: r.metric_name, score: r.score, status: r.eval_status, reason: r.reason }))

const VERBATIM = [
  'kagent-adk-py-1.22.1-helm-tool-call.jaeger.json',
  'kagent-adk-py-1.22.1-helm-clarifying-question.jaeger.json',
  'kagent-adk-py-1.22.1-helm-tool-call-args-gpt5mini.jaeger.json',
  'kagent-adk-py-1.22.1-k8s-no-tool.jaeger.json',
  'kagent-0.9.0-helm-tool-call.tempo.json',
]
const conversionOf = (file: string) => file.replace(/\.(jaeger|tempo)\.json$/, '.otlp.json')

describe('evalstream eval on Jaeger and Tempo exports', () => {
  it.each(VERBATIM)('%s is detected by shape and scores as its OTLP conversion', async (file) => {
    expect(looksLikeTraceStoreExport(readFileSync(real(file), 'utf8'))).toBe(true)
    const [verbatim, converted] = [await evalFile(HELM_SET, real(file)), await evalFile(HELM_SET, real(conversionOf(file)))]
    expect(verbatim.warnings).toEqual(converted.warnings.map((w) => w.replace(conversionOf(file), file)))
    expect(rows(verbatim)).toEqual(rows(converted))
    expect(rows(verbatim).map((r) => r.metric)).toContain('tool_trajectory_avg_score')
  })

  it("agentevals' expectations hold on the verbatim Jaeger files: trajectory 1.0 for helm, 0.0 for helm_3", async () => {
    const trajectory = async (file: string) =>
      (await evalFile(HELM_SET, real(file))).results.find((r) => r.metric_name === 'tool_trajectory_avg_score')
    expect(await trajectory('kagent-adk-py-1.22.1-helm-tool-call.jaeger.json')).toMatchObject({ score: 1, eval_status: 'PASSED' })
    expect(await trajectory('kagent-adk-py-1.22.1-helm-tool-call-args-gpt5mini.jaeger.json')).toMatchObject({
      score: 0,
      eval_status: 'FAILED',
    })
  })

  it.each([
    ['evalset_helm_3_2026-02-23.json', 'kagent-adk-py-1.22.1-helm-tool-call-args-gpt5mini.jaeger.json'],
    ['evalset_k8s_2026-02-20.json', 'kagent-adk-py-1.22.1-k8s-no-tool.jaeger.json'],
  ])('the golden set %s built from %s passes on it', async (set, file) => {
    expect((await evalFile(real(`agentevals-evalsets/${set}`), real(file))).passed).toBe(true)
  })
})

describe('reading trace store exports', () => {
  it("Tempo: nanosecond times keep every digit, and the app is the ADK agent, not another service's agent in the trace", () => {
    const tempo = decodeOtlpFile(readFileSync(real('kagent-0.9.0-helm-tool-call.tempo.json'), 'utf8'), DEFAULT_OTLP_LIMITS)
    const otlp = decodeOtlpFile(readFileSync(real('kagent-0.9.0-helm-tool-call.otlp.json'), 'utf8'), DEFAULT_OTLP_LIMITS)
    expect(tempo.format).toBe('tempo')
    const times = (d: typeof tempo) => d.spans.map((s) => [s.spanId, s.startMs, s.endMs]).sort()
    expect(times(tempo)).toEqual(times(otlp))
    expect(tempo.spans.some((s) => s.attributes['gen_ai.agent.name'] === 'helm-agent')).toBe(true)
    expect(tracesToConversations(tempo.spans, tempo.logs, BOUNDS).map((c) => c.appName)).toEqual(['helm_agent'])
  })

  it('Jaeger: parent from CHILD_OF, scope and status from the otel.* tags, resource from the process', () => {
    const jaeger = decodeOtlpFile(readFileSync(real('kagent-adk-py-1.22.1-helm-tool-call.jaeger.json'), 'utf8'), DEFAULT_OTLP_LIMITS)
    const invocation = jaeger.spans.find((s) => s.name === 'invocation')!
    expect(invocation).toMatchObject({
      parentSpanId: '8f453f8c052520b2',
      scope: 'gcp.vertex.agent',
      resource: { 'service.name': 'helm_agent', 'service.namespace': 'kagent' },
    })
    expect(invocation.attributes).not.toHaveProperty('otel.scope.name')
    expect(invocation.endMs - invocation.startMs).toBeCloseTo(4168.298, 3)
  })

  it('names a bad span by its path in the file and keeps the rest', () => {
    const jaeger = JSON.stringify({
      data: [{
        traceID: 'ab'.repeat(16),
        processes: { p1: { serviceName: 'svc', tags: [] } },
        spans: [
          {
            traceID: 'ab'.repeat(16),
            spanID: '01'.repeat(8),
            operationName: 'invocation',
            references: [],
            startTime: 1,
            duration: 5,
            tags: [],
            processID: 'p1',
          },
          {
            traceID: 'ab'.repeat(16),
            spanID: 'not-hex',
            operationName: 'call_llm',
            references: [],
            startTime: 1,
            duration: 2,
            tags: [],
            processID: 'p1',
          },
        ],
      }],
    })
    const decoded = decodeOtlpFile(jaeger, DEFAULT_OTLP_LIMITS)
    expect(decoded.spans.map((s) => s.name)).toEqual(['invocation'])
    expect(decoded.issues).toEqual([{
      line: 1,
      where: expect.stringMatching(/^data\[0\]\.spans\[1\] \("call_llm"\)/),
      message: expect.stringMatching(/spanId/),
    }])
    const tempo = '{"batches":[{"resource":{},"instrumentationLibrarySpans":[{"instrumentationLibrary":{"name":"x"},"spans":[{"traceId":"' +
      'ab'.repeat(16) +
      '","spanId":"zz","name":"s","startTimeUnixNano":1777555053780274700,"endTimeUnixNano":1777555053781172000}]}]}]}'
    expect(decodeOtlpFile(tempo, DEFAULT_OTLP_LIMITS).issues).toEqual([
      {
        line: 1,
        where: expect.stringMatching(/^batches\[0\]\.instrumentationLibrarySpans\[0\]\.spans\[0\]/),
        message: expect.stringMatching(/spanId/),
      },
    ])
  })

  it('a value nested past the depth limit is an issue naming where, not a crash', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    const jaeger = `{"data": [{"traceID": "t", "spans": [{"spanID": "s", "tags": [{"key": "k", "type": "string", "value": ${deep}}]}]}]}`
    const decoded = decodeOtlpFile(jaeger, DEFAULT_OTLP_LIMITS)
    expect(decoded.spans).toEqual([])
    expect(decoded.issues).toEqual([{
      line: 1,
      where: expect.stringMatching(/^\$\.data\[0\]\.spans\[0\]\.tags\[0\]\.value/),
      message: expect.stringMatching(/jaeger export nests deeper than \d+ levels/),
    }])
  })

  it('an export without spans is an error naming the file and the format', async () => {
    const outcome = await runEval({ evalSetPath: HELM_SET, eventsName: 'empty.json', eventsText: '{"data": []}', env: ENV, now: 0 })
    expect(outcome).toEqual({ ok: false, error: 'empty.json: the Jaeger export holds no spans' })
  })
})

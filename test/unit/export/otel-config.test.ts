/**
 * The OTEL_* variables as every OpenTelemetry SDK reads them, and the record a result becomes.
 */
import { describe, expect, it } from 'vitest'
import { otelConfigFromEnv } from '../../../src/config/otel.ts'
import type { CriterionResultData } from '../../../src/engine/types.ts'
import { OTEL_MAX_BATCH_RECORDS, OTEL_MAX_QUEUE_RECORDS } from '../../../src/export/otel-config.ts'
import { criterionExplanation, type DecidedResult, evaluationRecord } from '../../../src/export/otel-record.ts'

/** The config, or the test fails with the error. */
const configOf = (env: Record<string, string>) => {
  const read = otelConfigFromEnv(env)
  if (!read.ok) throw new Error(read.error)
  return read.value
}

describe('otelConfigFromEnv', () => {
  it('is off without an endpoint, and off when disabled', () => {
    expect(otelConfigFromEnv({})).toEqual({ ok: true, value: undefined })
    expect(configOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined()
    expect(configOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_LOGS_EXPORTER: 'none' })).toBeUndefined()
  })

  it('appends /v1/logs to the base endpoint and takes the logs endpoint as given', () => {
    expect(configOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example.com:4318/otlp/' })?.endpoint).toBe(
      'https://c.example.com:4318/otlp/v1/logs',
    )
    const both = configOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://b/ingest' })
    expect(both?.endpoint).toBe('http://b/ingest')
  })

  it('reads headers, resource attributes and service name, signal-specific variables first', () => {
    const config = configOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=1',
      OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'authorization=Bearer%20t0k,x-b=2',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,service.namespace=evals',
    })!
    expect(config.headers).toEqual({ authorization: 'Bearer t0k', 'x-b': '2' })
    expect(config.resource).toEqual({ 'service.name': 'from-attrs', 'service.namespace': 'evals' })
    expect(config.maxQueue).toBe(OTEL_MAX_QUEUE_RECORDS)
    expect(config.maxBatch).toBe(OTEL_MAX_BATCH_RECORDS)
    expect(configOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' })!.resource['service.name']).toBe('evalstream')
  })

  it('names the variable that is wrong', () => {
    expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4318' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/OTEL_EXPORTER_OTLP_ENDPOINT is not an http\(s\) URL/),
    })
    expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_HEADERS: 'novalue' })).toMatchObject({
      error: expect.stringMatching(/OTEL_EXPORTER_OTLP_HEADERS: entry 1 \('novalue'\) is not key=value/),
    })
    expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_BLRP_MAX_QUEUE_SIZE: '0' })).toMatchObject({
      error: "OTEL_BLRP_MAX_QUEUE_SIZE must be a whole number >= 1, not '0'",
    })
    expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'thrift' })).toMatchObject({
      error: expect.stringMatching(/OTEL_EXPORTER_OTLP_LOGS_PROTOCOL must be http\/json or http\/protobuf/),
    })
    const proto = otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })
    expect(proto.ok && proto.notes?.join()).toMatch(/sending http\/json/)
  })
})

// Partial criterion data on purpose: the record leaves out what a result does not carry.
const fed = (data: Record<string, unknown>, extra: Partial<DecidedResult> = {}): DecidedResult => ({
  sessionId: 's1',
  tenant: 'acme',
  event: { seq: 4, type: 'criterion.result', key: 'result/0/final_response_match_v2/0', data: data as CriterionResultData },
  atMs: 1_767_225_600_123,
  ...extra,
})

describe('evaluationRecord', () => {
  it("uses the judge's reasoning as the explanation, keeps the tenant, and bounds long strings", () => {
    const record = evaluationRecord(
      fed({
        invocation_id: 'e-1',
        invocation_index: 0,
        metric_name: 'final_response_match_v2',
        score: 1,
        threshold: 0.5,
        eval_status: 'PASSED',
        details: { reasoning: 'r'.repeat(50) },
        revision: 2,
      }),
      { maxAttributeChars: 40 },
    )
    const attrs = Object.fromEntries(record.attributes.map((a) => [a.key, Object.values(a.value)[0]]))
    expect(attrs).toEqual({
      'gen_ai.evaluation.name': 'final_response_match_v2',
      'gen_ai.evaluation.score.value': 1,
      'gen_ai.evaluation.score.label': 'passed',
      'gen_ai.evaluation.explanation': 'r'.repeat(40),
      'evalstream.session.id': 's1',
      'evalstream.tenant': 'acme',
      'evalstream.invocation.id': 'e-1',
      'evalstream.invocation.index': '0',
      'evalstream.evaluation.threshold': 0.5,
      'evalstream.evaluation.revision': '2',
      'evalstream.result.key': 'result/0/final_response_match_v2/0',
      'evalstream.result.seq': '4',
    })
    expect(record.timeUnixNano).toBe('1767225600123000000')
  })

  it('explains a missing score with its reason and leaves score.value out', () => {
    const record = evaluationRecord(
      fed({ metric_name: 'safety_v1', score: null, threshold: 1, eval_status: 'NOT_EVALUATED', reason: 'no judge configured' }),
      { maxAttributeChars: 100 },
    )
    const keys = record.attributes.map((a) => a.key)
    expect(keys).not.toContain('gen_ai.evaluation.score.value')
    expect(criterionExplanation({ reason: 'no judge configured' })).toBe('no judge configured')
    expect(record.attributes.find((a) => a.key === 'gen_ai.evaluation.score.label')?.value).toEqual({ stringValue: 'not_evaluated' })
  })
})

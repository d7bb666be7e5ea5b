/**
 * OTLP trace and log requests decoded from JSON and protobuf (gzip or not) to the same spans and log
 * records: every AnyValue kind, ids, times and status; a bad span rejected with where and why, the
 * attribute and per-request limits named, whole requests refused with the status OTLP asks for, and
 * a zip bomb stopped at the decompressed limit.
 * Covers: src/otlp/body.ts, src/otlp/decode-json.ts, src/otlp/decode-protobuf.ts, src/otlp/validate.ts.
 */
import { describe, expect, it } from 'vitest'
import { decodeLogsRequest, decodeTraceRequest, DEFAULT_OTLP_LIMITS, type OtlpLimits, OtlpRequestError } from '../../../src/otlp/index.ts'
import { encodeLogsProtobuf, encodeTracesProtobuf } from './support/encode-protobuf.ts'
import { fixtureText } from './support/fixtures.ts'

const TRACE = '5b8aa5a2d2c872e8321cf37308d69df2'
const str = (key: string, value: string) => ({ key, value: { stringValue: value } })

function spanJson(spanId: string, extra: Record<string, unknown> = {}) {
  return {
    traceId: TRACE,
    spanId,
    parentSpanId: '',
    name: 'call_llm',
    kind: 1,
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000001500000000',
    attributes: [
      str('gen_ai.operation.name', 'chat'),
      { key: 'gen_ai.usage.input_tokens', value: { intValue: '42' } },
      { key: 'ratio', value: { doubleValue: 0.5 } },
      { key: 'flag', value: { boolValue: true } },
      { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 7 }] } } },
      { key: 'map', value: { kvlistValue: { values: [str('k', 'v')] } } },
    ],
    status: { code: 2, message: 'boom' },
    ...extra,
  }
}

function request(spans: unknown[]) {
  return {
    resourceSpans: [{
      resource: { attributes: [str('service.name', 'weather')] },
      scopeSpans: [{ scope: { name: 'gcp.vertex.agent' }, spans }],
    }],
  }
}

const json = (body: unknown) => new TextEncoder().encode(JSON.stringify(body))
const JSON_TYPE = { contentType: 'application/json' }
const PROTO_TYPE = { contentType: 'application/x-protobuf' }

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('gzip'))
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

describe('OTLP trace request decoding', () => {
  it('reads every AnyValue kind, ids, times, status and resource from JSON', async () => {
    const decoded = await decodeTraceRequest(json(request([spanJson('00f067aa0ba902b7')])), JSON_TYPE, DEFAULT_OTLP_LIMITS)
    expect(decoded.rejectedCount).toBe(0)
    expect(decoded.spans).toEqual([
      {
        traceId: TRACE,
        spanId: '00f067aa0ba902b7',
        parentSpanId: '',
        name: 'call_llm',
        startMs: 1700000000000,
        endMs: 1700000001500,
        statusCode: 2,
        statusMessage: 'boom',
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.usage.input_tokens': 42,
          ratio: 0.5,
          flag: true,
          list: ['a', 7],
          map: { k: 'v' },
        },
        resource: { 'service.name': 'weather' },
        scope: 'gcp.vertex.agent',
      },
    ])
  })

  it('accepts the proto snake_case field names', async () => {
    const body = {
      resource_spans: [{
        scope_spans: [{
          spans: [{
            trace_id: TRACE,
            span_id: '00f067aa0ba902b7',
            name: 'x',
            start_time_unix_nano: '1',
            end_time_unix_nano: '2',
            attributes: [{ key: 'n', value: { int_value: '3' } }],
          }],
        }],
      }],
    }
    const decoded = await decodeTraceRequest(json(body), JSON_TYPE, DEFAULT_OTLP_LIMITS)
    expect(decoded.spans[0]?.attributes).toEqual({ n: 3 })
  })

  it('decodes protobuf to exactly what JSON gives, gzip or not', async () => {
    const body = request([spanJson('00f067aa0ba902b7'), spanJson('00f067aa0ba902b8', { parentSpanId: '00f067aa0ba902b7' })])
    const fromJson = await decodeTraceRequest(json(body), JSON_TYPE, DEFAULT_OTLP_LIMITS)
    const proto = encodeTracesProtobuf(body)
    expect(await decodeTraceRequest(proto, PROTO_TYPE, DEFAULT_OTLP_LIMITS)).toEqual(fromJson)
    expect(await decodeTraceRequest(await gzip(proto), { ...PROTO_TYPE, contentEncoding: 'gzip' }, DEFAULT_OTLP_LIMITS)).toEqual(fromJson)
    expect(await decodeTraceRequest(await gzip(json(body)), { ...JSON_TYPE, contentEncoding: 'gzip' }, DEFAULT_OTLP_LIMITS)).toEqual(
      fromJson,
    )
  })

  it('rejects a bad span with where and why and keeps the good ones', async () => {
    const body = request([spanJson('00f067aa0ba902b7'), spanJson('xyz'), spanJson('00f067aa0ba902b9', { endTimeUnixNano: '5' })])
    // (ids that are not hex cannot be written as protobuf bytes: JSON only)
    const decoded = await decodeTraceRequest(json(body), JSON_TYPE, DEFAULT_OTLP_LIMITS)
    expect(decoded.spans.map((s) => s.spanId)).toEqual(['00f067aa0ba902b7'])
    expect(decoded.rejectedCount).toBe(2)
    expect(decoded.rejected[0]).toMatchObject({
      where: 'resourceSpans[0].scopeSpans[0].spans[1] ("call_llm")',
      message: expect.stringContaining('spanId'),
    })
    expect(decoded.rejected[1]?.message).toMatch(/endTimeUnixNano is before startTimeUnixNano/)
  })

  it('names the attribute and the limit when a span breaks an attribute limit, in JSON and protobuf', async () => {
    const limits: OtlpLimits = { ...DEFAULT_OTLP_LIMITS, maxAttributeValueLength: 10, maxValueDepth: 2, maxAttributes: 6 }
    const long = spanJson('00f067aa0ba902b8', { attributes: [str('gcp.vertex.agent.llm_request', 'x'.repeat(11))] })
    const deep = spanJson('00f067aa0ba902b9', {
      attributes: [{ key: 'deep', value: { arrayValue: { values: [{ arrayValue: { values: [] } }] } } }],
    })
    const many = spanJson('00f067aa0ba902ba', { attributes: Array.from({ length: 7 }, (_, i) => str(`k${i}`, 'v')) })
    const body = request([long, deep, many, spanJson('00f067aa0ba902bb', { attributes: [] })])
    for (const [bytes, headers] of [[json(body), JSON_TYPE], [encodeTracesProtobuf(body), PROTO_TYPE]] as const) {
      const decoded = await decodeTraceRequest(bytes, headers, limits)
      expect(decoded.spans.map((s) => s.spanId)).toEqual(['00f067aa0ba902bb'])
      expect(decoded.rejected.map((r) => r.message)).toEqual([
        expect.stringMatching(/attribute 'gcp.vertex.agent.llm_request'.*EVALSTREAM_OTLP_MAX_ATTRIBUTE_VALUE_LENGTH=10/),
        expect.stringMatching(/attribute 'deep'.*EVALSTREAM_OTLP_MAX_VALUE_DEPTH=2/),
        expect.stringMatching(/attribute 'k6'.*EVALSTREAM_OTLP_MAX_ATTRIBUTES=6/),
      ])
    }
  })

  it('rejects spans past the per-request limit and counts them', async () => {
    const spans = Array.from({ length: 5 }, (_, i) => spanJson(`00f067aa0ba902c${i}`))
    const decoded = await decodeTraceRequest(json(request(spans)), JSON_TYPE, { ...DEFAULT_OTLP_LIMITS, maxItemsPerRequest: 3 })
    expect(decoded.spans).toHaveLength(3)
    expect(decoded.rejectedCount).toBe(2)
    expect(decoded.rejected[0]?.message).toMatch(/more than 3 spans in one request \(EVALSTREAM_OTLP_MAX_ITEMS_PER_REQUEST=3\)/)
  })

  it('refuses whole requests with the HTTP status OTLP asks for', async () => {
    const refused = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as OtlpRequestError)
    expect(await refused(decodeTraceRequest(json({}), { contentType: 'text/plain' }, DEFAULT_OTLP_LIMITS))).toMatchObject({ status: 415 })
    expect(await refused(decodeTraceRequest(json({}), { ...JSON_TYPE, contentEncoding: 'br' }, DEFAULT_OTLP_LIMITS))).toMatchObject({
      status: 415,
    })
    expect(await refused(decodeTraceRequest(new TextEncoder().encode('{'), JSON_TYPE, DEFAULT_OTLP_LIMITS))).toMatchObject({
      status: 400,
      message: /not JSON/,
    })
    expect(await refused(decodeTraceRequest(Uint8Array.from([0x0a, 0x05, 0x01]), PROTO_TYPE, DEFAULT_OTLP_LIMITS))).toMatchObject({
      status: 400,
      message: /malformed protobuf: truncated/,
    })
    expect(await refused(decodeTraceRequest(json({ x: 'y'.repeat(100) }), JSON_TYPE, { ...DEFAULT_OTLP_LIMITS, maxRequestBytes: 50 })))
      .toMatchObject({ status: 413, message: /EVALSTREAM_OTLP_MAX_REQUEST_BYTES=50/ })
    expect(await refused(decodeTraceRequest(Uint8Array.from([1, 2, 3]), { ...JSON_TYPE, contentEncoding: 'gzip' }, DEFAULT_OTLP_LIMITS)))
      .toMatchObject({ status: 400, message: /gzip/ })
  })

  it('stops inflating a zip bomb at the decompressed limit', async () => {
    const bomb = await gzip(new Uint8Array(4 * 1024 * 1024)) // 4 MiB of zeros, about 4 KiB compressed
    expect(bomb.byteLength).toBeLessThan(10_000)
    const limits = { ...DEFAULT_OTLP_LIMITS, maxDecompressedBytes: 1024 * 1024 }
    const error = await decodeTraceRequest(bomb, { ...PROTO_TYPE, contentEncoding: 'gzip' }, limits).catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 413, message: /EVALSTREAM_OTLP_MAX_DECOMPRESSED_BYTES=1048576/ })
  })

  it('reads a request body stream under the byte limit', async () => {
    const body = request([spanJson('00f067aa0ba902b7')])
    const decoded = await decodeTraceRequest(new Blob([json(body)]).stream(), JSON_TYPE, DEFAULT_OTLP_LIMITS)
    expect(decoded.spans).toHaveLength(1)
  })
})

describe('OTLP logs request decoding', () => {
  it('reads event names, bodies and ids alike from JSON and protobuf', async () => {
    const body = {
      resourceLogs: [{
        scopeLogs: [{
          logRecords: [
            {
              timeUnixNano: '1700000000000000000',
              traceId: TRACE,
              spanId: '00f067aa0ba902b7',
              eventName: 'gen_ai.choice',
              body: {
                kvlistValue: {
                  values: [{ key: 'index', value: { intValue: '0' } }, {
                    key: 'content',
                    value: { kvlistValue: { values: [str('role', 'model')] } },
                  }],
                },
              },
            },
            {
              timeUnixNano: '1700000000000000000',
              traceId: TRACE,
              spanId: '00f067aa0ba902b7',
              attributes: [str('event.name', 'gen_ai.user.message')],
              body: { stringValue: 'hi' },
            },
          ],
        }],
      }],
    }
    const fromJson = await decodeLogsRequest(json(body), JSON_TYPE, DEFAULT_OTLP_LIMITS)
    expect(fromJson.logs.map((l) => [l.eventName, l.body])).toEqual([
      ['gen_ai.choice', { index: 0, content: { role: 'model' } }],
      ['gen_ai.user.message', 'hi'],
    ])
    expect(await decodeLogsRequest(encodeLogsProtobuf(body), PROTO_TYPE, DEFAULT_OTLP_LIMITS)).toEqual(fromJson)
  })
})

describe('the recorded fixtures as protobuf', () => {
  it.each(['adk-python-v1.jsonl', 'adk-python-v2.jsonl', 'adk-js.jsonl', 'adk-go.jsonl', 'genai-semconv.jsonl'])(
    '%s decodes to the same spans and logs from protobuf as from JSON',
    async (file) => {
      for (const line of fixtureText(file).split('\n').filter((l) => l.trim() !== '')) {
        const body = JSON.parse(line) as Record<string, unknown>
        if ('resourceLogs' in body) {
          const fromJson = await decodeLogsRequest(json(body), JSON_TYPE, DEFAULT_OTLP_LIMITS)
          expect(fromJson.logs.length).toBeGreaterThan(0)
          expect(await decodeLogsRequest(encodeLogsProtobuf(body), PROTO_TYPE, DEFAULT_OTLP_LIMITS)).toEqual(fromJson)
        } else {
          const fromJson = await decodeTraceRequest(json(body), JSON_TYPE, DEFAULT_OTLP_LIMITS)
          expect(fromJson.spans.length).toBeGreaterThan(0)
          expect(await decodeTraceRequest(encodeTracesProtobuf(body), PROTO_TYPE, DEFAULT_OTLP_LIMITS)).toEqual(fromJson)
        }
      }
    },
  )
})

import { describe, expect, it } from 'vitest'
import { decodeTraceRequest, DEFAULT_OTLP_LIMITS, exportResponse } from '../../../src/otlp/index.ts'
import { ProtoReader } from '../../../src/otlp/protobuf-reader.ts'

const TRACE = '5b8aa5a2d2c872e8321cf37308d69df2'
const span = (spanId: string) => ({ traceId: TRACE, spanId, name: 'x', startTimeUnixNano: '1', endTimeUnixNano: '2' })

describe('OTLP export responses', () => {
  it('is empty when everything was accepted, in either encoding', () => {
    expect(exportResponse('traces', 'json', { rejectedCount: 0, rejected: [] })).toEqual({ contentType: 'application/json', body: '{}' })
    expect(exportResponse('logs', 'protobuf', { rejectedCount: 0, rejected: [] })).toEqual({
      contentType: 'application/x-protobuf',
      body: new Uint8Array(),
    })
  })

  it('reports partial success with the count and where and why', async () => {
    const body = { resourceSpans: [{ scopeSpans: [{ spans: [span('00f067aa0ba902b7'), span('bad'), span('')] }] }] }
    const decoded = await decodeTraceRequest(
      new TextEncoder().encode(JSON.stringify(body)),
      { contentType: 'application/json' },
      DEFAULT_OTLP_LIMITS,
    )
    const json = JSON.parse(exportResponse('traces', 'json', decoded).body as string)
    expect(json).toEqual({
      partialSuccess: {
        rejectedSpans: '2',
        errorMessage:
          'resourceSpans[0].scopeSpans[0].spans[1] ("x"): spanId is not 8 bytes of hex (and not all zero); resourceSpans[0].scopeSpans[0].spans[2] ("x"): spanId is not 8 bytes of hex (and not all zero)',
      },
    })
    // The protobuf answer holds the same: partial_success (1) { rejected (1), error_message (2) }.
    const proto = exportResponse('logs', 'protobuf', decoded).body as Uint8Array
    const outer = new ProtoReader(proto)
    expect(outer.tag()).toEqual({ field: 1, wire: 2 })
    const inner = outer.message()
    expect(inner.tag()).toEqual({ field: 1, wire: 0 })
    expect(inner.varint()).toBe(2)
    expect(inner.tag()).toEqual({ field: 2, wire: 2 })
    expect(inner.string()).toBe(json.partialSuccess.errorMessage)
  })

  it('says how many more were rejected than it describes', () => {
    const rejected = Array.from({ length: 7 }, (_, i) => ({ where: `s[${i}]`, message: 'bad', count: 1 }))
    const json = JSON.parse(exportResponse('traces', 'json', { rejectedCount: 9, rejected }).body as string)
    expect(json.partialSuccess.errorMessage).toBe('s[0]: bad; s[1]: bad; s[2]: bad; s[3]: bad; s[4]: bad; and 4 more')
  })
})

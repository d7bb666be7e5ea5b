/**
 * The OTLP module on workerd (Miniflare): gzip-compressed protobuf and JSON requests decoded with
 * the web DecompressionStream, and mapped to the same invocations as on Node.
 * Covers: src/otlp/body.ts, src/otlp/decode-protobuf.ts, src/otlp/decode-json.ts, src/otlp/invocations.ts.
 */
import { Miniflare } from 'miniflare'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeOtlpFile, DEFAULT_OTLP_LIMITS, toAdkInvocation, tracesToConversations } from '../../../src/otlp/index.ts'
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS } from '../../support/worker-build.ts'
import { encodeLogsProtobuf, encodeTracesProtobuf } from '../../unit/otlp/support/encode-protobuf.ts'
import { BOUNDS, fixtureText } from '../../unit/otlp/support/fixtures.ts'
import { bundle, WORKER } from './otlp-bundle.ts'

describe('OTLP decoding on workerd', () => {
  let mf: Miniflare
  beforeAll(async () => {
    const { code } = await bundle(WORKER)
    mf = new Miniflare({ modules: true, script: code, compatibilityDate: COMPATIBILITY_DATE, compatibilityFlags: COMPATIBILITY_FLAGS })
    await mf.ready
  })
  afterAll(() => mf?.dispose())

  it('decodes gzip protobuf traces and logs (ADK Go, legacy and semconv 1.44 with content on the spans) to the invocations Node builds', async () => {
    const text = fixtureText('adk-go.jsonl') + fixtureText('adk-now/go-1.44-span-and-event.jsonl')
    for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
      const body = JSON.parse(line) as Record<string, unknown>
      const isLogs = 'resourceLogs' in body
      const bytes = gzipSync(isLogs ? encodeLogsProtobuf(body) : encodeTracesProtobuf(body))
      const response = await mf.dispatchFetch(`http://otlp.test/v1/${isLogs ? 'logs' : 'traces'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
        body: bytes,
      })
      expect(response.status).toBe(200)
      expect(((await response.json()) as { rejected: number }).rejected).toBe(0)
    }
    const onWorkerd = await (await mf.dispatchFetch('http://otlp.test/invocations')).json()
    const decoded = decodeOtlpFile(text, DEFAULT_OTLP_LIMITS)
    const onNode = tracesToConversations(decoded.spans, decoded.logs, BOUNDS).map((c) => ({
      id: c.conversationId,
      invocations: c.traces.map(toAdkInvocation),
    }))
    expect(onNode).toHaveLength(2)
    expect(onWorkerd).toEqual(JSON.parse(JSON.stringify(onNode)))
  })

  it('refuses a zip bomb with 413 naming the limit', async () => {
    const response = await mf.dispatchFetch('http://otlp.test/v1/traces', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.alloc(DEFAULT_OTLP_LIMITS.maxDecompressedBytes + 1)),
    })
    expect(response.status).toBe(413)
    expect(((await response.json()) as { message: string }).message).toMatch(/EVALSTREAM_OTLP_MAX_DECOMPRESSED_BYTES/)
  })
})

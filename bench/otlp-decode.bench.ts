/**
 * OTLP decode benchmark: spans/s for one ExportTraceServiceRequest as JSON and as protobuf (plain
 * and gzip), next to the bare `JSON.parse` of the same body, then the span -> ADK invocation mapping
 * on top; and the bundle size of the decoder as a Worker carries it. The request is the ADK Python
 * v1 fixture's two traces repeated with fresh trace ids (content on: each call_llm holds its whole
 * request and response JSON, so spans are large, as in production).
 *
 * Run: npx node bench/otlp-decode.bench.ts [TRACES=500] [ROUNDS=5]
 */
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { decodeTraceRequest, DEFAULT_OTLP_LIMITS, tracesToConversations } from '../src/otlp/index.ts'
import { bundle, ENTRIES } from '../test/runtimes/otlp/otlp-bundle.ts'
import { encodeTracesProtobuf } from '../test/unit/otlp/support/encode-protobuf.ts'

const TRACES = Number(process.argv[2] ?? 500)
const ROUNDS = Number(process.argv[3] ?? 5)
const LIMITS = { ...DEFAULT_OTLP_LIMITS, maxItemsPerRequest: 1e9, maxRequestBytes: 1e9, maxDecompressedBytes: 1e9 }

// deno-lint-ignore no-explicit-any -- a benchmark fixture built by hand; its shape is checked by the decoders it feeds
type Json = Record<string, any>
const lines = readFileSync(new URL('../test/fixtures/otlp/adk-python-v1.jsonl', import.meta.url), 'utf8').split('\n').filter(Boolean)
const fixtureSpans: Json[] = lines.flatMap((l) => (JSON.parse(l) as Json).resourceSpans[0].scopeSpans[0].spans)
const spans: Json[] = []
for (let i = 0; i < TRACES / 2; i++) {
  for (const span of fixtureSpans) spans.push({ ...span, traceId: i.toString(16).padStart(16, '0') + span.traceId.slice(16) })
}
const body = {
  resourceSpans: [{
    resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] },
    scopeSpans: [{ scope: { name: 'gcp.vertex.agent' }, spans }],
  }],
}
const jsonBytes = new TextEncoder().encode(JSON.stringify(body))
const protoBytes = encodeTracesProtobuf(body)
const cases = {
  'JSON.parse only (baseline)': async () => void JSON.parse(new TextDecoder().decode(jsonBytes)),
  'JSON decode': () => decodeTraceRequest(jsonBytes, { contentType: 'application/json' }, LIMITS),
  'protobuf decode': () => decodeTraceRequest(protoBytes, { contentType: 'application/x-protobuf' }, LIMITS),
  'JSON decode, gzip': ((g) => () => decodeTraceRequest(g, { contentType: 'application/json', contentEncoding: 'gzip' }, LIMITS))(
    gzipSync(jsonBytes),
  ),
  'protobuf decode, gzip': ((g) => () => decodeTraceRequest(g, { contentType: 'application/x-protobuf', contentEncoding: 'gzip' }, LIMITS))(
    gzipSync(protoBytes),
  ),
  'protobuf decode + map to invocations': async () => {
    const decoded = await decodeTraceRequest(protoBytes, { contentType: 'application/x-protobuf' }, LIMITS)
    tracesToConversations(decoded.spans, [], { maxJsonDepth: 100, maxStringLength: 1e6 })
  },
}

console.log(
  `${spans.length} spans in ${TRACES} traces; JSON ${(jsonBytes.byteLength / 1024).toFixed(0)} KiB, protobuf ${
    (protoBytes.byteLength / 1024).toFixed(0)
  } KiB; best and median of ${ROUNDS} rounds`,
)
for (const [name, run] of Object.entries(cases)) {
  await run() // warm
  const times: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now()
    await run()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  const rate = (ms: number) => Math.round(spans.length / (ms / 1000)).toLocaleString('en-US')
  console.log(
    `${name.padEnd(40)} best ${rate(times[0]!).padStart(9)} spans/s   median ${
      rate(times[Math.floor(times.length / 2)]!).padStart(9)
    } spans/s`,
  )
}
for (const [name, source] of Object.entries(ENTRIES)) {
  const { bytes, gzipBytes } = await bundle(source)
  console.log(`bundle (${name}, esbuild --minify): ${(bytes / 1024).toFixed(1)} KiB, ${(gzipBytes / 1024).toFixed(1)} KiB gzip`)
}

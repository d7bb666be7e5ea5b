/**
 * OTLP monitoring benchmark, on Node, in process (the Hono app's fetch, no socket):
 *
 * 1. Throughput: spans/s through `POST /v1/traces` with scoring (decode, assemble, feed each
 *    completed trace into its conversation's session, score the deterministic criteria, log the
 *    results), next to the bare OTLP JSON decode of the same bodies. Each conversation is the ADK JS
 *    fixture's two turns with fresh trace and conversation ids, posted as its exporter sends them
 *    (children, then the root), so every request completes a trace.
 * 2. Latency: per conversation, turn 1 posted (creating the session), a reader on the session's
 *    `/results` SSE stream, turn 2's child spans posted, then the deciding request (turn 2's root
 *    span, which completes it): the time from that POST to turn 2's `tool_trajectory_avg_score`
 *    frame read off the stream, p50 and p99.
 * 3. Real ADK traces: the recordings in test/fixtures/shared/otlp-real (kagent on ADK Python 1.22.1
 *    and 0.9.0 with their A2A and HTTP spans, the ADK Python 2.5.0 math agent), each copy with fresh
 *    trace and conversation ids, one request per recording as an exporter batches them: spans/s and
 *    MB/s of request body, decode only and posted and scored, as JSON and as protobuf. One thread
 *    does all of it, so each rate is one core's.
 *
 * Run: npx node bench/otlp-ingest.bench.ts [CONVERSATIONS=300] [REAL_COPIES=40]
 */
import { readFileSync } from 'node:fs'
import { createApp } from '../src/http/app.ts'
import { depsFromEnv } from '../src/config/setup.ts'
import { decodeOtlpFile, decodeTraceRequest, DEFAULT_OTLP_LIMITS, tracesToConversations } from '../src/otlp/index.ts'
import { memorySessionStore } from '../src/session/store.ts'
import { encodeTracesProtobuf } from '../test/unit/otlp/support/encode-protobuf.ts'

const CONVERSATIONS = Number(process.argv[2] ?? 300)
type Request = { resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }> }
const fixture = new URL('../test/fixtures/otlp/', import.meta.url)
const lines = readFileSync(new URL('adk-js.jsonl', fixture), 'utf8').split('\n').filter(Boolean)
const config = JSON.parse(readFileSync(new URL('weather.test_config.json', fixture), 'utf8'))
const evalCase = JSON.parse(readFileSync(new URL('weather.evalset.json', fixture), 'utf8')).eval_cases[0]

/** The fixture's requests for conversation `n`: fresh trace ids and conversation id, same spans. */
function conversation(n: number): string[] {
  const hex = n.toString(16).padStart(8, '0')
  return lines.map((l) => l.replaceAll('"traceId":"00000001', `"traceId":"${hex}`).replaceAll('session-js', `conv-${n}`))
}
const spansIn = (bodies: string[]) =>
  bodies.reduce((n, b) => n + (JSON.parse(b) as Request).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).length, 0)

function app(otlpConfig: unknown = { apps: { weather_agent: { eval_config: config, eval_case: evalCase } } }) {
  const env = {
    GEMINI_API_KEY: '',
    GOOGLE_API_KEY: '',
    EVALSTREAM_OTLP_CONFIG: JSON.stringify(otlpConfig),
    EVALSTREAM_MAX_SESSIONS: '1000000',
    EVALSTREAM_MAX_SESSIONS_PER_TENANT: '1000000',
  }
  const setup = depsFromEnv(env, { store: (limits, feed) => memorySessionStore({ limits, feed, sweeper: 'manual' }) })
  if (!setup.ok) throw new Error(setup.error)
  return createApp(setup.deps)
}
const post = (a: ReturnType<typeof app>, body: string) =>
  a.request('/v1/traces', { method: 'POST', body, headers: { 'content-type': 'application/json' } })

const bodies = Array.from({ length: CONVERSATIONS }, (_, n) => conversation(n + 1)).flat()
const spans = spansIn(bodies)

const decodeAll = async () => {
  const t = performance.now()
  for (const body of bodies) {
    await decodeTraceRequest(new TextEncoder().encode(body), { contentType: 'application/json' }, DEFAULT_OTLP_LIMITS)
  }
  return performance.now() - t
}
const ingestAll = async () => {
  const scored = app()
  const t = performance.now()
  for (const body of bodies) {
    const res = await post(scored, body)
    if (res.status !== 200) throw new Error(`POST /v1/traces answered ${res.status}: ${await res.text()}`)
  }
  return performance.now() - t
}
// A first round of each warms the JIT; the second is measured.
await decodeAll()
const decodeMs = await decodeAll()
await ingestAll()
const ingestMs = await ingestAll()

// Deciding span to verdict on SSE.
const live = app()
const latencies: number[] = []
for (let n = 1; n <= CONVERSATIONS; n++) {
  const id = CONVERSATIONS + n
  const [children1, root1, children2, root2] = conversation(id)
  // Turn 1 creates the session; its stream is then open (and read up to turn 1's verdict) before turn 2.
  for (const body of [children1!, root1!, children2!]) await post(live, body)
  const stream = await live.request(`/v1/sessions/otlp-conv-${id}/results`, { headers: { accept: 'text/event-stream' } })
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader()
  const readUntil = async (needle: RegExp) => {
    let text = ''
    while (!needle.test(text)) {
      const r = await reader.read()
      if (r.done) throw new Error('results stream ended before the verdict')
      text += r.value
    }
  }
  await readUntil(
    /"metric_name":"tool_trajectory_avg_score"[^\n]*"invocation_index":0|"invocation_index":0[^\n]*"metric_name":"tool_trajectory_avg_score"/,
  )
  const started = performance.now()
  await post(live, root2!) // the deciding span: turn 2's root
  await readUntil(
    /"metric_name":"tool_trajectory_avg_score"[^\n]*"invocation_index":1|"invocation_index":1[^\n]*"metric_name":"tool_trajectory_avg_score"/,
  )
  latencies.push(performance.now() - started)
  await reader.cancel()
}
latencies.sort((a, b) => a - b)
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(2)

console.log(`${CONVERSATIONS} conversations, ${bodies.length} requests, ${spans} spans (ADK JS shape, content on)`)
console.log(`bare OTLP JSON decode:        ${(spans / (decodeMs / 1000)).toFixed(0)} spans/s`)
console.log(
  `POST /v1/traces, scored:      ${(spans / (ingestMs / 1000)).toFixed(0)} spans/s (${(ingestMs / decodeMs).toFixed(1)}x the decode time)`,
)
console.log(`deciding span -> verdict on SSE: p50 ${pct(50)} ms, p99 ${pct(99)} ms (${latencies.length} turns)`)

// 3. Real ADK traces, fresh ids per copy.
const REAL_COPIES = Number(process.argv[3] ?? 40)
const real = new URL('../test/fixtures/shared/otlp-real/', import.meta.url)
const REAL_FILES = [
  'kagent-adk-py-1.22.1-helm-tool-call.otlp.json',
  'kagent-adk-py-1.22.1-helm-clarifying-question.otlp.json',
  'kagent-adk-py-1.22.1-helm-tool-call-args-gpt5mini.otlp.json',
  'kagent-adk-py-1.22.1-k8s-no-tool.otlp.json',
  'kagent-0.9.0-helm-tool-call.otlp.json',
  'strands-adk-py-2.5.0-math-tool-call.otlp.json',
]
const firstCase = (path: URL) => JSON.parse(readFileSync(path, 'utf8')).eval_cases[0]
const trajectoryAndResponse = { criteria: { tool_trajectory_avg_score: 1, response_match_score: 0.8 } }
const realConfig = {
  apps: {
    helm_agent: { eval_config: trajectoryAndResponse, eval_case: firstCase(new URL('agentevals-evalsets/eval_set_helm.json', real)) },
    k8s_agent: {
      eval_config: trajectoryAndResponse,
      eval_case: firstCase(new URL('agentevals-evalsets/evalset_k8s_2026-02-20.json', real)),
    },
    math_agent: {
      eval_config: trajectoryAndResponse,
      eval_case: firstCase(new URL('../test/fixtures/otlp/adk-now/math.evalset.json', import.meta.url)),
    },
  },
}
const recordings = REAL_FILES.map((file) => {
  const text = JSON.stringify(JSON.parse(readFileSync(new URL(file, real), 'utf8')))
  const decoded = decodeOtlpFile(text, DEFAULT_OTLP_LIMITS)
  const [conversation] = tracesToConversations(decoded.spans, decoded.logs, { maxJsonDepth: 100, maxStringLength: 1e7 })
  return {
    text,
    spans: decoded.spans.length,
    traceIds: [...new Set(decoded.spans.map((s) => s.traceId))],
    conversationId: conversation!.conversationId,
  }
})
/** Copy `n` of each recording: its trace ids and conversation id replaced, everything else as recorded. */
const realJson: string[] = []
let realSpans = 0
for (let n = 1; n <= REAL_COPIES; n++) {
  for (const r of recordings) {
    let text = r.text.replaceAll(r.conversationId, `${r.conversationId}-${n}`)
    for (const id of r.traceIds) text = text.replaceAll(id, n.toString(16).padStart(8, '0') + id.slice(8))
    realJson.push(text)
    realSpans += r.spans
  }
}
const realJsonBytes = realJson.map((t) => new TextEncoder().encode(t))
const realProto = realJson.map((t) => encodeTracesProtobuf(JSON.parse(t)))
const totalBytes = (bodies: Uint8Array[]) => bodies.reduce((n, b) => n + b.byteLength, 0)
const JSON_TYPE = 'application/json'
const PROTO_TYPE = 'application/x-protobuf'

/** Wall time and the process's CPU time (user + system, all threads), in ms: on a shared machine the CPU time is the per-core cost. */
type Took = { wallMs: number; cpuMs: number }
async function timed(work: () => Promise<void>): Promise<Took> {
  const [wall, cpu] = [performance.now(), process.cpuUsage()]
  await work()
  const used = process.cpuUsage(cpu)
  return { wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 }
}
const decodeReal = (bodies: Uint8Array[], contentType: string) =>
  timed(async () => {
    for (const body of bodies) await decodeTraceRequest(body, { contentType }, DEFAULT_OTLP_LIMITS)
  })
function scoreReal(bodies: Uint8Array[], contentType: string) {
  const scored = app(realConfig)
  return timed(async () => {
    for (const body of bodies) {
      const res = await scored.request('/v1/traces', { method: 'POST', body: body as BodyInit, headers: { 'content-type': contentType } })
      if (res.status !== 200) throw new Error(`POST /v1/traces answered ${res.status}: ${await res.text()}`)
    }
  })
}
const realRows: Array<[string, Uint8Array[], string, (b: Uint8Array[], c: string) => Promise<Took>]> = [
  ['decode only, JSON', realJsonBytes, JSON_TYPE, decodeReal],
  ['decode only, protobuf', realProto, PROTO_TYPE, decodeReal],
  ['POST /v1/traces scored, JSON', realJsonBytes, JSON_TYPE, scoreReal],
  ['POST /v1/traces scored, protobuf', realProto, PROTO_TYPE, scoreReal],
]
console.log(
  `\nreal ADK traces: ${REAL_FILES.length} recordings x ${REAL_COPIES} copies, ${realJson.length} requests, ${realSpans} spans; ` +
    `JSON ${(totalBytes(realJsonBytes) / 1e6).toFixed(1)} MB (${(totalBytes(realJsonBytes) / realSpans / 1000).toFixed(2)} kB/span), ` +
    `protobuf ${(totalBytes(realProto) / 1e6).toFixed(1)} MB`,
)
for (const [name, bodies, type, run] of realRows) {
  await run(bodies, type) // warms the JIT
  const { wallMs, cpuMs } = await run(bodies, type)
  const rates = (ms: number) =>
    `${(realSpans / (ms / 1000)).toFixed(0).padStart(7)} spans/s ${(totalBytes(bodies) / (ms / 1000) / 1e6).toFixed(1).padStart(6)} MB/s`
  console.log(`${name.padEnd(34)} per CPU-second ${rates(cpuMs)}   wall clock ${rates(wallMs)}`)
}

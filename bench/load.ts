/**
 * Load on loopback, bounded in count and time: the Node server (`npm start`, a child process) takes
 * N sessions x E events while S subscribers per session follow each session's result stream.
 * Reports lost results (a subscriber missing a seq that GET /v1/sessions/{id} says exists; must be
 * 0), duplicate results (a seq received twice by one subscriber; must be 0), verdict latency (from
 * sending the POST that carries an invocation's final answer, the event that decides its
 * tool_trajectory_avg_score, to a subscriber receiving that criterion.result), and the server's
 * peak RSS and event-loop delay (bench/loop-probe.ts, preloaded into the server). Stops by itself
 * after --max-seconds, reporting what it has.
 *
 *   npx node bench/load.ts [--sessions 1000] [--events 200] [--subscribers 2] [--max-seconds 300]
 *
 * Each invocation is 4 events (tool call, tool response, partial text, final text) posted together
 * as NDJSON; the eval case expects every invocation, so each one gets a verdict per criterion.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { parseArgs } from 'node:util'
import { createParser } from 'eventsource-parser'

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1000' },
    events: { type: 'string', default: '200' },
    subscribers: { type: 'string', default: '2' },
    'max-seconds': { type: 'string', default: '300' },
  },
})
const SESSIONS = Number(values.sessions)
const INVOCATIONS = Math.max(1, Math.floor(Number(values.events) / 4))
const SUBSCRIBERS = Number(values.subscribers)
const MAX_MS = Number(values['max-seconds']) * 1000
const METRIC = 'tool_trajectory_avg_score'
const CONFIG = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 } }
const CITIES = ['Paris', 'Tokyo', 'Lima', 'Oslo']

const city = (k: number) => CITIES[k % CITIES.length]!
const answer = (k: number) => `In ${city(k)} it is sunny and 21C.`
const evalCase = {
  eval_id: 'load',
  conversation: Array.from({ length: INVOCATIONS }, (_, k) => ({
    invocation_id: `expected-${k}`,
    user_content: { role: 'user', parts: [{ text: `Weather in ${city(k)}?` }] },
    final_response: { role: 'model', parts: [{ text: answer(k) }] },
    intermediate_data: { tool_uses: [{ name: 'get_weather', args: { city: city(k) } }], intermediate_responses: [] },
  })),
}

/** One invocation's 4 events as NDJSON; the last (the final answer) decides its verdicts. */
function invocationBody(k: number): string {
  const base = { invocationId: `inv-${k}`, author: 'weather_agent' }
  const events = [
    { ...base, content: { role: 'model', parts: [{ functionCall: { id: `c${k}`, name: 'get_weather', args: { city: city(k) } } }] } },
    { ...base, content: { role: 'user', parts: [{ functionResponse: { id: `c${k}`, name: 'get_weather', response: { report: 'sunny, 21C' } } }] } },
    { ...base, partial: true, content: { role: 'model', parts: [{ text: `In ${city(k)}` }] } },
    { ...base, content: { role: 'model', parts: [{ text: answer(k) }] } },
  ]
  return events.map((e) => JSON.stringify(e)).join('\n') + '\n'
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/** The server's peak resident set (Linux VmHWM), in MiB. */
function peakRssMiB(pid: number): number | null {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb ? Number(kb) / 1024 : null
  } catch {
    return null
  }
}

const port = await freePort()
const base = `http://127.0.0.1:${port}`
// The loop probe prints the server's event-loop delay percentiles (bench/loop-probe.ts).
const server = spawn(process.execPath, ['--import', './bench/loop-probe.ts', 'src/adapter/node/server.ts'], {
  env: { ...process.env, PORT: String(port), GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '' },
  stdio: ['ignore', 'pipe', 'inherit'],
})
let loopDelay = 'not measured'
server.stdout!.on('data', (d: Buffer) => {
  const lines = d.toString().match(/loop-delay .*/g)
  if (lines) loopDelay = lines.at(-1)!.replace('loop-delay ', '').replaceAll('=', ' ').replaceAll(' max', ' ms, max').replaceAll(' p99', ' ms, p99') + ' ms'
})
await new Promise<void>((resolve, reject) => {
  server.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve())
  server.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
})
const idleRss = peakRssMiB(server.pid!)

const stop = new AbortController()
const deadline = setTimeout(() => stop.abort(new Error(`stopped after --max-seconds ${MAX_MS / 1000}`)), MAX_MS)
const latencies: number[] = []
const totals = { lost: 0, duplicates: 0, received: 0, expected: 0, unfinished: 0, missingVerdicts: 0, failedRequests: 0 }

type Received = { seqs: number[]; done: boolean; verdicts: Set<string> }

/**
 * Opens one session's result stream; resolves once the response headers are in (the server
 * subscribes before it answers), with the promise of everything the stream will carry.
 */
async function subscribe(id: string, sentAt: Map<number, number>): Promise<{ rest: Promise<Received> }> {
  const res = await fetch(`${base}/v1/sessions/${id}/results`, { signal: stop.signal })
  return { rest: follow(res, sentAt) }
}

/** Reads a result stream to its end; every seq received (with repeats), and the verdicts seen. */
async function follow(res: Response, sentAt: Map<number, number>): Promise<Received> {
  const seqs: number[] = []
  const verdicts = new Set<string>()
  let done = false
  const parser = createParser({
    onEvent(message) {
      seqs.push(Number(message.id))
      if (message.event === 'case.result') done = true
      if (message.event !== 'criterion.result') return
      const data = JSON.parse(message.data) as { invocation_index: number; metric_name: string }
      verdicts.add(`${data.invocation_index}/${data.metric_name}`)
      const sent = sentAt.get(data.invocation_index)
      if (data.metric_name === METRIC && sent !== undefined) latencies.push(performance.now() - sent)
    },
  })
  const decoder = new TextDecoder()
  for await (const chunk of res.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))
  return { seqs, done, verdicts }
}

async function post(path: string, body: string, type = 'application/json'): Promise<Response> {
  const res = await fetch(`${base}${path}`, { method: 'POST', body, headers: { 'content-type': type }, signal: stop.signal })
  if (!res.ok) totals.failedRequests++
  await res.arrayBuffer()
  return res
}

async function runSession(n: number): Promise<void> {
  const id = `load-${n}`
  await post('/v1/sessions', JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: evalCase }))
  const sentAt = new Map<number, number>()
  // Every subscriber is live before the first event, so latencies are not backlog replays.
  const subscribers = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => subscribe(id, sentAt)))
  for (let k = 0; k < INVOCATIONS; k++) {
    sentAt.set(k, performance.now())
    await post(`/v1/sessions/${id}/events`, invocationBody(k), 'application/x-ndjson')
  }
  await post(`/v1/sessions/${id}/end`, '')
  const received = await Promise.all(subscribers.map((s) => s.rest))
  const snap = (await (await fetch(`${base}/v1/sessions/${id}`, { signal: stop.signal })).json()) as { last_seq: number }
  for (const { seqs, done, verdicts } of received) {
    const distinct = new Set(seqs)
    totals.received += seqs.length
    totals.expected += snap.last_seq
    totals.duplicates += seqs.length - distinct.size
    for (let seq = 1; seq <= snap.last_seq; seq++) if (!distinct.has(seq)) totals.lost++
    if (!done) totals.unfinished++
    // Configured criteria only: ADK's efficiency metrics are reported on top, always.
    totals.missingVerdicts += INVOCATIONS * CONFIG_METRICS - [...verdicts].filter((v) => CONFIGURED.has(v.slice(v.indexOf('/') + 1))).length
  }
}
const CONFIG_METRICS = Object.keys(CONFIG.criteria).length
const CONFIGURED = new Set(Object.keys(CONFIG.criteria))

const started = performance.now()
const outcomes = await Promise.allSettled(Array.from({ length: SESSIONS }, (_, n) => runSession(n)))
const elapsed = (performance.now() - started) / 1000
clearTimeout(deadline)
const peak = peakRssMiB(server.pid!)
// One more loop-delay report covers the end of the run.
await new Promise((resolve) => setTimeout(resolve, 300))
server.kill('SIGTERM')

const failed = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[]
const sorted = latencies.sort((a, b) => a - b)
const pct = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1) : 'n/a')
console.log(`load: ${SESSIONS} sessions x ${INVOCATIONS * 4} events (${INVOCATIONS} invocations), ${SUBSCRIBERS} subscribers each, ${elapsed.toFixed(1)} s`)
console.log(`  events posted/s: ${((SESSIONS * INVOCATIONS * 4) / elapsed).toFixed(0)}; results delivered: ${totals.received} of ${totals.expected} expected`)
console.log(`  lost results: ${totals.lost}; duplicate results: ${totals.duplicates}; streams without case.result: ${totals.unfinished}; missing verdicts: ${totals.missingVerdicts}`)
console.log(`  verdict latency (${METRIC}, ${sorted.length} samples): p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms`)
console.log(`  server event-loop delay (whole run, 10 ms resolution): ${loopDelay}`)
console.log(`  server RSS: ${idleRss?.toFixed(0)} MiB at start, peak ${peak?.toFixed(0)} MiB; failed requests: ${totals.failedRequests}; failed sessions: ${failed.length}`)
if (failed.length > 0) {
  const reason = failed[0]!.reason as Error & { cause?: unknown }
  console.log(`  first failure: ${String(reason)}${reason?.cause ? ` (cause: ${String((reason.cause as Error).message ?? reason.cause)})` : ''}`)
}
const bad = totals.lost + totals.duplicates + totals.unfinished + totals.missingVerdicts + totals.failedRequests + failed.length
process.exit(bad > 0 ? 1 : 0)

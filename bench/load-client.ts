/**
 * The load client for any evalstream base URL (Node server, workerd): S sessions, each created,
 * followed by its subscribers, fed its invocations one NDJSON upload at a time and ended, all
 * sessions concurrently. Counts lost results (a seq the session's snapshot says exists that a
 * subscriber never got), duplicates (a seq received twice by one subscriber), streams without
 * case.result, missing verdicts and failed requests; verdict latency is from sending the POST that
 * carries an invocation's final answer to a subscriber receiving its tool_trajectory_avg_score
 * criterion.result. A 503 with Retry-After on create (admission) is waited out and retried.
 */
import { createParser } from 'eventsource-parser'
import { CONFIG, invocationBody, loadCase, METRIC } from './load-case.ts'
import { abortAll, call, openStream } from './load-http.ts'

export type LoadOptions = { sessions: number; invocations: number; subscribers: number; signal: AbortSignal }
export type LoadOutcome = {
  seconds: number
  eventsPerSecond: number
  latenciesMs: number[]
  lost: number
  duplicates: number
  received: number
  expected: number
  unfinished: number
  missingVerdicts: number
  failedRequests: number
  failedSessions: number
  refusedCreates: number
  failures: string[]
}

const CONFIGURED = new Set(Object.keys(CONFIG.criteria))

/** What one subscriber got: every seq (with repeats), whether case.result came, and the configured verdicts seen. */
export type ReceivedStream = { seqs: number[]; done: boolean; verdicts: Set<string> }
/** A criterion.result as a stream carries it (what the benches read of it). */
export type Verdict = { invocation_index: number; metric_name: string }

/**
 * Reads a result stream to its end; `onVerdict` hears every criterion.result as it arrives. The
 * body is a fetch Response's bytes or a node:http response's text chunks.
 */
export async function readResultStream(
  body: AsyncIterable<Uint8Array | string>,
  onVerdict: (verdict: Verdict) => void,
): Promise<ReceivedStream> {
  const seqs: number[] = []
  const verdicts = new Set<string>()
  let done = false
  const parser = createParser({
    onEvent(message) {
      seqs.push(Number(message.id))
      if (message.event === 'case.result') done = true
      if (message.event !== 'criterion.result') return
      const data = JSON.parse(message.data) as Verdict
      // Configured criteria only: ADK's efficiency metrics are reported on top, always.
      if (CONFIGURED.has(data.metric_name)) verdicts.add(`${data.invocation_index}/${data.metric_name}`)
      onVerdict(data)
    },
  })
  const decoder = new TextDecoder()
  for await (const chunk of body) parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }))
  return { seqs, done, verdicts }
}

/** The counts a session's streams add, against the last seq its snapshot says it logged. */
export type StreamCounts = {
  received: number
  expected: number
  duplicates: number
  lost: number
  unfinished: number
  missingVerdicts: number
}

/** Adds one session's streams to `counts`: what arrived, what arrived twice, what never did. */
export function countStreams(counts: StreamCounts, streams: ReceivedStream[], lastSeq: number, invocations: number): void {
  for (const { seqs, done, verdicts } of streams) {
    const distinct = new Set(seqs)
    counts.received += seqs.length
    counts.expected += lastSeq
    counts.duplicates += seqs.length - distinct.size
    for (let seq = 1; seq <= lastSeq; seq++) if (!distinct.has(seq)) counts.lost++
    if (!done) counts.unfinished++
    counts.missingVerdicts += invocations * CONFIGURED.size - verdicts.size
  }
}

/** A JSON answer's value, or {} when it is not JSON (a failure the caller counts). */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return {}
  }
}

/**
 * Runs the load against `base` and reports what arrived; never throws for a failed session. `base`
 * may be a function of the session's number: several servers, each owning the sessions sent to it.
 */
export async function runLoad(base: string | ((session: number) => string), o: LoadOptions): Promise<LoadOutcome> {
  const baseOf = typeof base === 'string' ? () => base : base
  const body = JSON.stringify({ eval_config: CONFIG, eval_case: loadCase(o.invocations) })
  const uploads = Array.from({ length: o.invocations }, (_, k) => invocationBody(k))
  const t = { lost: 0, duplicates: 0, received: 0, expected: 0, unfinished: 0, missingVerdicts: 0, failedRequests: 0, refusedCreates: 0 }
  /** Events the server accepted (a run stopped early counts only these). */
  let accepted = 0
  const latenciesMs: number[] = []
  const failures: string[] = []
  const fail = (what: string) => {
    t.failedRequests++
    if (failures.length < 5) failures.push(what)
  }

  async function follow(res: { status: number; body: AsyncIterable<string> }, sentAt: Map<number, number>): Promise<ReceivedStream> {
    if (res.status !== 200) fail(`${res.status} on GET results`)
    return readResultStream(res.body, (verdict) => {
      const sent = sentAt.get(verdict.invocation_index)
      if (verdict.metric_name === METRIC && sent !== undefined) latenciesMs.push(performance.now() - sent)
    })
  }

  async function session(n: number): Promise<void> {
    const id = `load-${n}`
    const base = baseOf(n)
    for (;;) {
      const res = await call(base, 'POST', '/v1/sessions', { body: `{"session_id":"${id}",${body.slice(1)}` })
      if (res.status === 201) break
      const wait = Number(res.headers['retry-after'])
      if (res.status !== 503 || !(wait > 0)) return fail(`${res.status} on POST /v1/sessions`)
      t.refusedCreates++
      await new Promise((r) => setTimeout(r, wait * 1000))
    }
    const sentAt = new Map<number, number>()
    // Every subscriber is live before the first event, so latencies are not backlog replays.
    // The server subscribes before it answers: once the headers are in, the stream is live.
    const streams = await Promise.all(
      Array.from({ length: o.subscribers }, async () => {
        const res = await openStream(base, `/v1/sessions/${id}/results`)
        const rest = follow(res, sentAt)
        // A session stopped before it awaits its streams (the deadline) must not leave their rejection unhandled.
        rest.catch(() => {})
        return { rest }
      }),
    )
    for (let k = 0; k < o.invocations; k++) {
      sentAt.set(k, performance.now())
      const res = await call(base, 'POST', `/v1/sessions/${id}/events`, { body: uploads[k], type: 'application/x-ndjson' })
      const summary = parsed(res.text) as { accepted?: number }
      if (res.status !== 202 || summary.accepted !== 4) fail(`${res.status} on POST events (accepted ${summary.accepted})`)
      else accepted += 4
    }
    const ended = await call(base, 'POST', `/v1/sessions/${id}/end`)
    if (ended.status !== 200) fail(`${ended.status} on POST /end`)
    const received = await Promise.all(streams.map((s) => s.rest))
    const snap = JSON.parse((await call(base, 'GET', `/v1/sessions/${id}`)).text) as { last_seq: number }
    countStreams(t, received, snap.last_seq, o.invocations)
  }

  // Stopping cuts every connection of the client: each request in flight fails, and its session with it.
  o.signal.addEventListener('abort', abortAll, { once: true })
  const started = performance.now()
  const outcomes = await Promise.allSettled(Array.from({ length: o.sessions }, (_, n) => session(n)))
  o.signal.removeEventListener('abort', abortAll)
  const seconds = (performance.now() - started) / 1000
  const rejected = outcomes.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
  if (rejected.length > 0 && failures.length < 5) failures.push(`first failed session: ${String(rejected[0]!.reason)}`)
  return {
    ...t,
    seconds,
    eventsPerSecond: accepted / seconds,
    latenciesMs: latenciesMs.sort((a, b) => a - b),
    failedSessions: rejected.length,
    failures,
  }
}

/** What must be 0 for a run to count. */
export function badCount(r: LoadOutcome): number {
  return r.lost + r.duplicates + r.unfinished + r.missingVerdicts + r.failedRequests + r.failedSessions
}

export function percentile(sorted: number[], p: number): string {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1) : 'n/a'
}

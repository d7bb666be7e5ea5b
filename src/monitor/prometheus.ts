/**
 * What `GET /metrics` reports (docs/metrics.md): events ingested and rejected, results by criterion
 * and status (counted from the result feed, so a replay counts nothing twice), judge calls, tokens
 * and latency (from the judge executor's `observe` hook), sessions open and evicted (read from the
 * store when scraped) and HTTP requests by route pattern and status.
 *
 * Every label value comes from a closed set: criterion names from the catalogue (anything else is
 * `other`), reason and outcome codes, route patterns, status codes. Session ids, tenants and app
 * names are never labels.
 */
import type { EventRejectReason } from '../session/feed.ts'
import type { OtlpDropReason } from '../otlp/model.ts'
import { statusFromCode } from '../adk/status.ts'
import { type FailureCode, failureLabel } from '../engine/failure-codes.ts'
import { criteriaCatalogue } from '../core/registry.ts'
import type { JudgeCallRecord } from '../judge/executor.ts'
import { createRegistry, type Registry } from './prometheus-registry.ts'
import type { FedResult, ResultFeed } from '../session/result-feed.ts'
import type { SessionStore } from '../session/store.ts'

/** Buckets of the judge call latency histogram, in seconds (the judge deadline defaults to 90 s). */
export const JUDGE_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120] as const
/** Buckets of the HTTP latency histogram (to the response headers; a stream's length is not counted), in seconds. */
export const HTTP_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const
/** Buckets of the per-criterion score histogram (ADK scores are 0..1). */
export const SCORE_BUCKETS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1] as const

export type { EventRejectReason } from '../session/feed.ts'

export type EventSource = 'upload' | 'proxy'

/** Why an OTLP request was refused whole: the `reason` label of evalstream_otlp_requests_refused_total. */
export type OtlpRequestRefusal =
  | 'admission'
  | 'decode_slots'
  | 'tenant_decode_slots'
  | 'body_deadline'
  | 'process_bytes'
  | 'tenant_bytes'
  | 'tenant_held_bytes'

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

export type PrometheusMetrics = {
  /** EVALSTREAM_METRICS_TOKEN: when set, /metrics answers only `Authorization: Bearer <it>`. */
  token?: string
  /** Counts every result `feed` publishes from now on; returns the unwatch function. */
  watch(feed: ResultFeed): () => void
  /** Reads the store's session counts at each scrape. */
  attachStore(store: SessionStore): void
  /** The judge executor's `observe` hook. */
  judge(record: JudgeCallRecord): void
  events: {
    ingested(source: EventSource, count: number): void
    rejected(source: EventSource, reason: EventRejectReason, count: number): void
    /**
     * An upload refused whole, or stopped part-way (what it sent before that still counts above), by
     * its failure code: the `reason` label is the code's label (src/engine/failure-codes.ts).
     */
    refused(code: FailureCode): void
  }
  otlp: {
    /** A completed trace not scored, with why. */
    dropped(reason: OtlpDropReason): void
    /** An OTLP request refused whole (429 / 408 / 503), with why. */
    refused(reason: OtlpRequestRefusal): void
  }
  /** One answered request; `route` is the matched pattern (`/v1/sessions/:id`) or `unmatched`. */
  http(method: string, route: string, status: number, seconds: number): void
  /** The exposition text (format 0.0.4). */
  render(): string
}

/**
 * @example
 * const metrics = createPrometheusMetrics({ token: env.EVALSTREAM_METRICS_TOKEN })
 * metrics.watch(feed); metrics.attachStore(store)
 * judgeWiringFromEnv(env, { observe: metrics.judge })
 */
export function createPrometheusMetrics(options: { token?: string } = {}): PrometheusMetrics {
  const r: Registry = createRegistry()
  const known = new Set(criteriaCatalogue().map((c) => c.name))
  const criterion = (name: string) => (known.has(name) ? name : 'other')

  const ingested = r.counter('evalstream_events_ingested_total', 'ADK events accepted into a session.', ['source'])
  const rejected = r.counter('evalstream_events_rejected_total', 'Events rejected one by one (their neighbours kept), by reason.', [
    'source',
    'reason',
  ])
  const refused = r.counter('evalstream_event_uploads_refused_total', 'Event uploads refused whole or stopped part-way, by reason.', [
    'reason',
  ])
  const results = r.counter('evalstream_criterion_results_total', 'Decided criterion results per invocation.', ['criterion', 'status'])
  const scores = r.histogram('evalstream_criterion_score', 'Scores of decided criterion results.', SCORE_BUCKETS, ['criterion'])
  const cases = r.counter('evalstream_case_results_total', 'Case results (a session ended), by final status.', ['status'])
  const judgeCalls = r.counter('evalstream_judge_calls_total', 'Judge requests, by how they settled.', ['outcome'])
  const modelCalls = r.counter('evalstream_judge_model_calls_total', 'Model calls made for judge requests (retries not counted).')
  const attempts = r.counter('evalstream_judge_attempts_total', 'HTTP attempts of judge model calls, retries included.')
  const tokens = r.counter('evalstream_judge_tokens_total', 'Tokens judge calls reported, by kind.', ['kind'])
  const judgeSeconds = r.histogram(
    'evalstream_judge_call_duration_seconds',
    'Time a judge request held its slot (attempts and retry waits included).',
    JUDGE_SECONDS_BUCKETS,
    ['outcome'],
  )
  const otlpDropped = r.counter('evalstream_otlp_traces_dropped_total', 'Completed OTLP traces not scored, by reason.', ['reason'])
  const otlpRefused = r.counter('evalstream_otlp_requests_refused_total', 'OTLP requests refused whole (429, 408, 503), by reason.', [
    'reason',
  ])
  const requests = r.counter('evalstream_http_requests_total', 'HTTP requests answered, by route pattern and status.', [
    'method',
    'route',
    'status',
  ])
  const httpSeconds = r.histogram('evalstream_http_request_duration_seconds', 'Time to the response headers.', HTTP_SECONDS_BUCKETS, [
    'method',
    'route',
  ])

  let store: SessionStore | undefined
  const stats = () => store?.stats?.()
  r.sampled('evalstream_sessions', 'Sessions held, by state.', 'gauge', () => {
    const s = stats()
    return s ? [{ labels: { state: 'open' }, value: s.open }, { labels: { state: 'ended' }, value: s.ended }] : []
  })
  r.sampled('evalstream_sessions_live', 'Sessions whose engine is in memory.', 'gauge', () => {
    const s = stats()
    return s ? [{ value: s.live }] : []
  })
  r.sampled(
    'evalstream_session_bytes',
    'Bytes the sessions in memory hold, by the byte budget estimate (EVALSTREAM_MAX_PROCESS_BYTES bounds it).',
    'gauge',
    () => {
      const held = stats()?.heldBytes
      return held === undefined ? [] : [{ value: held }]
    },
  )
  r.sampled('evalstream_sessions_evicted_total', 'Sessions evicted since start, by reason.', 'counter', () => {
    const s = stats()
    return s ? Object.entries(s.evicted).map(([reason, value]) => ({ labels: { reason }, value })) : []
  })

  const onResult = (fed: FedResult) => {
    const { type, data } = fed.event
    if (type === 'criterion.result') {
      const name = criterion(data.metric_name)
      results.inc({ criterion: name, status: data.eval_status })
      if (data.score !== null && Number.isFinite(data.score)) scores.observe(data.score, { criterion: name })
    } else if (type === 'case.result') {
      const code = data.final_eval_status // ADK's file shape: the status as its number
      cases.inc({ status: typeof code === 'number' ? statusFromCode(code) : 'NOT_EVALUATED' })
    }
  }

  return {
    ...(options.token ? { token: options.token } : {}),
    watch: (feed) => feed.watch(onResult),
    attachStore(s) {
      store = s
    },
    judge(record) {
      judgeCalls.inc({ outcome: record.outcome })
      if (record.durationMs !== undefined) judgeSeconds.observe(record.durationMs / 1000, { outcome: record.outcome })
      if (!record.usage) return
      modelCalls.inc({}, record.usage.requests)
      attempts.inc({}, record.usage.attempts)
      tokens.inc({ kind: 'prompt' }, record.usage.promptTokens)
      tokens.inc({ kind: 'output' }, record.usage.outputTokens)
    },
    events: {
      ingested: (source, count) => count > 0 && ingested.inc({ source }, count),
      rejected: (source, reason, count) => count > 0 && rejected.inc({ source, reason }, count),
      refused: (code) => refused.inc({ reason: failureLabel(code) }),
    },
    otlp: {
      dropped: (reason) => otlpDropped.inc({ reason }),
      refused: (reason) => otlpRefused.inc({ reason }),
    },
    http(method, route, status, seconds) {
      const m = METHODS.has(method) ? method : 'other'
      requests.inc({ method: m, route, status: String(status) })
      httpSeconds.observe(seconds, { method: m, route })
    },
    render: () => r.render(),
  }
}

/**
 * What the HTTP app needs from its host. Runtime specifics (process, Deno, node:*, Worker env)
 * stay in the adapters, which build these.
 */
import type { Admission } from './admission.ts'
import type { RunQuotas } from '../runner/run-quotas.ts'
import type { JudgeExecutor } from '../judge/executor.ts'
import type { RunStore } from '../runner/run-store.ts'
import type { Authenticator, CorsSettings } from './auth-config.ts'
import type { EvalSetStore } from './dev-eval/eval-set-store.ts'
import type { Limits } from '../ingest/limits.ts'
import type { PrometheusMetrics } from '../monitor/prometheus.ts'
import type { Exporters } from '../export/exporters.ts'
import type { TurnSlicerOptions } from '../ingest/turn-slicer.ts'
import type { ProxySettings } from './proxy/settings.ts'
import type { ResultFeed } from '../session/result-feed.ts'
import type { ResultsIndex } from '../monitor/results-index.ts'
import type { SessionLimits, SessionStore } from '../session/store.ts'
import type { EngineFactory } from '../session/session.ts'
import type { OtlpReceiver } from './otlp-routes.ts'
import type { DeadlineTimer } from '../judge/within-deadline.ts'

export type AppDeps = {
  store: SessionStore
  /** Builds a session's engine; returns the problem (400/422) when the spec is invalid. */
  createEngine: EngineFactory
  /** The model behind the user simulator of POST /v1/runs (the judge executor); scenario cases are NOT_EVALUATED without it. */
  simulator?: Pick<JudgeExecutor, 'answer'>
  /** The deployment default EvalConfig (EVALSTREAM_CONFIG), used when a session brings none. */
  defaultConfig?: unknown
  /** Proxy mode: the ADK api_server to forward /run_sse and the other ADK routes to. */
  agentUrl?: string
  /** The fetch used for proxying (a test double, or a Worker's service binding). */
  fetch?: typeof fetch
  /** How the proxy waits for pending verdicts (default: a timer); a test passes a manual clock. */
  proxySleep?: (ms: number, signal: AbortSignal) => Promise<void>
  /** Every new result of every session of `store` (when the store was built with this feed). */
  feed?: ResultFeed
  /** Results across sessions (GET /v1/results, /v1/stats, /v1/sessions); those routes answer 404 without it. */
  resultsIndex?: ResultsIndex
  /** The feed's exporters (OpenTelemetry, webhooks): a Worker waits on idle(), a server closes them at shutdown. */
  exporters?: Exporters
  /** Proxy mode's timeouts; DEFAULT_PROXY_SETTINGS when absent. */
  proxy?: ProxySettings
  /** The store's lifecycle limits, named in what a client is told about an evicted session. */
  sessionLimits?: SessionLimits
  /** Eval set runs (POST /v1/runs) beside the sessions; a fresh in-memory store per app when absent. */
  runs?: RunStore
  /** New session ids; defaults to crypto.randomUUID. */
  newId?: () => string
  /** Bearer tokens per tenant (EVALSTREAM_TOKENS); absent means open: no token asked, no tenants. */
  auth?: Authenticator
  /** Browser origins allowed to call the API (EVALSTREAM_CORS_ORIGINS); absent means no CORS headers. */
  cors?: CorsSettings
  /** What a client may send (EVALSTREAM_MAX_*); DEFAULT_LIMITS when absent. */
  limits?: Limits
  /** How an upload's synchronous work is sliced (src/ingest/turn-slicer.ts); defaults when absent. */
  turns?: TurnSlicerOptions
  /** Proxy mode's eval sets and results for the ADK web UI (src/http/dev-eval); in memory when absent. */
  evalSets?: EvalSetStore
  /** EVALSTREAM_PUBLIC_URL: the absolute base of the URLs a create answer gives; relative URLs without it. */
  publicUrl?: string
  /** Eval set and Eval tab runs in progress at once, per process and per tenant; DEFAULT_RUN_QUOTAS when absent. */
  runQuotas?: RunQuotas
  /** Prometheus counters for GET /metrics (Node and Deno; not the ADK eval metrics); absent: /metrics answers 404 (Workers). */
  metrics?: PrometheusMetrics
  /**
   * Resolves once every write made so far is committed, where writes are committed on another
   * thread (the Node server's writer): a request that may write is answered only after it, so an
   * acknowledged event survives a kill -9. Absent: writes are committed before the answer anyway.
   */
  writesDurable?: () => Promise<unknown>
  /** Whether a new session is admitted now (src/http/admission.ts); absent: always. */
  admission?: Admission
  /** The OTLP/HTTP receiver (POST /v1/traces, /v1/logs); those routes answer 404 without it. */
  otlp?: OtlpReceiver
  /** The clock an OTLP body's read deadline runs on (default AbortSignal.timeout; tests move their own). */
  otlpDeadline?: DeadlineTimer
}

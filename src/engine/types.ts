/**
 * The boundary between the engine (stateful scoring of one session) and whoever hosts it: the HTTP
 * app on Node and Deno, the Durable Object on Workers, the CLI. Hosts own transport, persistence and
 * sequence numbers; the engine owns everything about scores.
 */
import type { AdkEvent } from '../adk/event.ts'
import type { EvalCaseResult } from '../adk/results.ts'
import type { InvocationScore } from '../core/criterion.ts'
import type { JudgeRunner } from './metric-run.ts'
import type { CriterionResultData, RejectedEvent, ResultEventBody } from './result-events.ts'

// The wire protocol (results, their data, rejected events) is declared once, as zod schemas.
export type {
  CaseResultFile,
  CriterionProgressData,
  CriterionResultData,
  InvocationStarted,
  RejectedEvent,
  ResultErrorData,
  ResultEvent,
  ResultEventBody,
  ResultEventType,
} from './result-events.ts'

/**
 * What the engine emits: a result body, except that the case result is the typed EvalCaseResult.
 * The host writes it in ADK's file shape (`evalCaseResultValue`) before logging it.
 */
export type EngineEmission =
  | Exclude<ResultEventBody, { type: 'case.result' }>
  | { type: 'case.result'; data: EvalCaseResult; key: string }

/** One decoded event, as src/ingest produces it: `raw` is the JSON exactly as received. */
export type IngestedEvent = { index: number; event: AdkEvent; raw: unknown }

/** The results so far (GET /v1/sessions/{id}; the host writes `case_result` in ADK's file shape). */
export type SessionSnapshot = {
  session_id: string
  ended: boolean
  metrics: string[]
  invocations: Array<{
    invocation_id: string
    invocation_index: number
    completed: boolean
    /** The latest result of each metric by name; null until the invocation completes. */
    results: Record<string, InvocationScore | null>
  }>
  case_result: EvalCaseResult | null
}

/** What a session is asked to score: ADK's EvalConfig and, optionally, the eval case it should follow. */
export type SessionSpec = {
  session_id: string
  /** ADK EvalConfig JSON; absent means the deployment default. */
  eval_config?: unknown
  /** ADK EvalCase JSON; without it only reference-free criteria can score. */
  eval_case?: unknown
  /** The tenant that created the session (hosts with auth); the engine ignores it. */
  tenant?: string
  /** The app being scored when no eval case names it (a session born from an agent's traces); the engine ignores it. */
  app_name?: string
  /** This session's own webhook (docs/webhooks.md); the engine ignores it. Holds a secret: never serve the spec back. */
  webhook?: SessionWebhook
}

/** A per-session webhook as the create request gives it: where to POST, the HMAC key, which results. */
export type SessionWebhook = { url: string; secret: string; filter?: string }

/** The criterion results a host logged, read back by seq (a seq it does not have is left out). */
export type LoggedResults = (seqs: readonly number[]) => ReadonlyMap<number, CriterionResultData>

/**
 * A live session's engine. Hosts push events in arrival order and receive result bodies through the
 * `emit` callback given at creation, synchronously for deterministic criteria and later for judged
 * ones. Everything the engine emits depends only on the spec, the events and the judge answers, so a
 * host that persists those can rebuild a session by replaying them.
 */
export interface SessionEngine {
  /** Score one event. A bad event is the host's to report; the engine only sees valid events. */
  push(item: IngestedEvent): void
  /** Report a rejected event as an `error` result without ending the session. */
  reject(rejected: RejectedEvent): void
  /** The agent closed its stream (a /run_sse response ended): complete the open invocation. */
  completeInvocation(): void
  /**
   * End the session: complete everything, wait (bounded) for judges, emit and return the case
   * result. Idempotent: later calls return the same result.
   */
  end(): Promise<EvalCaseResult>
  /**
   * The results so far. Without them (`withResults` false), each invocation's `results` is empty:
   * for a host that keeps `resultSeqs()` and reads the results back from its log when asked.
   */
  snapshot(withResults?: boolean): SessionSnapshot
  /** Stop judge work started for this session (client gone, session deleted). */
  abort(reason?: string): void
  /** Resolves once the judge work running now has answered and its results were emitted. */
  judgesSettled?(): Promise<void>
  /**
   * The seq each invocation's latest result per metric was logged under (-1: none), metric after
   * metric, invocation after invocation, as the snapshot lists them: what an ended session's host
   * keeps instead of the results. Undefined when `emit` returned no seqs.
   */
  resultSeqs?(): Int32Array | undefined
}

export type EngineOptions = {
  spec: SessionSpec
  /**
   * Takes each result the moment it is known. A host that logs results returns the seq it logged
   * this one under (the seq it already had, for a result a replay recognised): with
   * `loggedResults`, that seq is all a completed invocation keeps of it.
   */
  emit(body: EngineEmission): number | void
  /**
   * The host's clock, in milliseconds (any origin; only differences are used). It times each
   * invocation from its first event arriving to its completion (invocation_duration_v1). Without it,
   * as for a capture read from a file, durations are not measured. A host replaying a journal gives
   * the times the entries were first received, so a rebuilt session reports the same durations.
   */
  clock?: () => number
  /**
   * Metrics that cannot be scored on an invocation, by metric name, with the reason: parts its
   * source did not carry (an OTLP trace exported without message content). Those metrics report
   * NOT_EVALUATED with the reason instead of scoring what is absent as wrong. Asked when the
   * invocation completes; a host replaying a journal must answer as it did the first time.
   */
  unscorable?: (invocationId: string) => ReadonlyMap<string, string> | undefined
  /** Synchronous scoring time a session may spend; without it scoring is not timed. */
  budget?: CpuBudget
  /**
   * Every event pushed so far, in push order, read back from where the host keeps them (a
   * session's journal). With it, a completed invocation lets its events go: a late event of it
   * reads them back, and so does `end()` to build the case result's actual invocations. Unless a
   * configured metric reads earlier invocations while the session runs (`readsPrevious`).
   */
  conversation?: () => Iterable<AdkEvent>
  /**
   * Hears that the engine let a completed invocation's events go (only with `conversation`): the
   * host stops counting them as memory it holds. Events read back for a late event are not
   * announced again; the next let-go covers only what arrived since.
   */
  eventsLetGo?: (invocationId: string) => void
  /**
   * The criterion results the host logged, read back by the seqs `emit` returned. With it, a
   * completed invocation the engine is done with keeps only those seqs (verdicts.ts); the snapshot,
   * the case result and a late event read its results back.
   */
  loggedResults?: LoggedResults
}

/** The engine's options: the host's (EngineOptions), and the judge and defaults it was composed with. */
export type SessionEngineOptions = EngineOptions & {
  judge?: JudgeRunner
  /** Why judged criteria are NOT_EVALUATED when `judge` is absent (default: no judge configured). */
  noJudgeReason?: string
  /** The deployment default EvalConfig, used when the spec has none (ADK's defaults otherwise). */
  defaultConfig?: unknown
  /** What problems with the config are said to be in (default: `eval_config`); the CLI names its file. */
  configSource?: string
  endWaitMs?: number
}

/**
 * How much synchronous scoring time one event and one session may take, measured by `clock` around
 * each pushed event (the event loop is held for exactly that long). Past either, the session stops
 * scoring: one `error` result (kind `cpu_budget_exhausted`) names the limit, the event and the time
 * spent; later events are recorded but not scored, and the session can still be read and ended.
 */
export type CpuBudget = {
  maxEventCpuMs: number
  maxSessionCpuMs: number
  /** Milliseconds, any origin; a test injects a counter so the budget is deterministic. */
  clock: () => number
  /** How the limits are named in the error (e.g. `EVALSTREAM_MAX_EVENT_CPU_MS=50`). */
  names?: { event: string; session: string }
}

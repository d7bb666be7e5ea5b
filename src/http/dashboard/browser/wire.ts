/**
 * What the dashboard reads from the API, as far as it uses it. The server's own schemas
 * (src/engine, src/http/openapi/schemas.ts) are the reference; these are the browser's view of
 * them, kept loose where the page only passes values through.
 */

export type CriterionCounts = { passed: number; failed: number; not_evaluated: number }

/** One row of GET /v1/sessions. */
export type SessionSummary = {
  session_id: string
  status: string
  app?: string | null
  invocations: number
  last_at: number
  criteria: Record<string, CriterionCounts>
  /** Present when the server no longer holds the session (deleted or evicted). */
  gone?: { reason: string; detail: string }
}

export type SessionList = { sessions: SessionSummary[]; tenant?: string | null }

/** GET /v1/sessions/{id}: the parts the page reads. */
export type SessionSnapshot = {
  metrics?: string[]
  invocations?: Array<{ invocation_index: number; invocation_id?: string }>
  ended?: boolean
  case_result?: unknown
}

export type ConversationPart = { kind: 'text'; text: string } | { kind: 'call'; name: string; args: string } | {
  kind: 'response'
  name: string
}

export type Conversation = {
  entries: Array<{ author?: string; partial?: boolean; parts: ConversationPart[] }>
  dropped?: number
}

export type StatusCounts = { PASSED: number; FAILED: number; NOT_EVALUATED: number; INFORMATIONAL: number }

export type TimeBucket = { start_ms: number; total: number; pass_rate: number | null; mean_score?: number | null }

export type CriterionStats = {
  criterion: string
  total: number
  counts: StatusCounts
  pass_rate: number | null
  mean_score: number | null
  score_buckets: Array<{ from: number; to: number; count: number }>
  over_time: TimeBucket[]
}

/** Per app: how much of its traffic could be scored, and why the rest could not. */
export type AppScorable = {
  app: string
  decided: number
  scored: number
  scorable_share: number | null
  not_evaluated_reasons: Array<{ reason: string; count: number }>
}

/** GET /v1/stats (`apps` absent from servers older than it). */
export type Stats = { since: string; until: string; bucket_ms: number; criteria: CriterionStats[]; apps?: AppScorable[] }

/** One result from the results stream: its SSE id, event name and JSON data. */
export type ResultMessage = { seq: number; type: string; data: ResultData }

/** The fields of a result's data the page reads (each result type has some of them). */
export type ResultData = {
  invocation_index: number
  invocation_id?: string
  metric_name: string
  score?: number | null
  threshold?: number | null
  eval_status?: string
  final?: boolean
  details?: unknown
  reason?: string
  final_eval_status?: number
  kind?: string
  index?: number
  path?: string
  message?: string
}

/** One case of an eval-set run as it stands. */
export type RunCase = { eval_set_id: string; eval_id: string; run: number; status: string; reason?: string; session_id?: string }

/** One run of GET /v1/runs. */
export type RunSummary = {
  run_id: string
  app_name: string
  started_at: string
  finished: boolean
  cases_done: number
  failed: number
  not_evaluated: number
  cases: RunCase[]
}

export type RunList = { runs: RunSummary[] }

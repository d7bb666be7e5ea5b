/**
 * The boundary between the engine (stateful scoring of one session) and whoever hosts it: the HTTP
 * app on Node and Deno, the Durable Object on Workers, the CLI. Hosts own transport, persistence and
 * sequence numbers; the engine owns everything about scores.
 */
import type { EvalStatus } from '../core/status.ts'

export type ResultEventType =
  | 'invocation.started'
  | 'criterion.progress'
  | 'criterion.result'
  | 'case.result'
  | 'error'

/** A result as the engine emits it; the host's result log gives it a sequence number. */
export type ResultEventBody = { type: ResultEventType; data: Record<string, unknown> }

/** A result as stored and streamed: `seq` is monotonic per session and is the SSE `id:`. */
export type ResultEvent = ResultEventBody & { seq: number }

/** `data` of a `criterion.result` (and, with `provisional: true`, of a `criterion.progress`). */
export type CriterionResultData = {
  invocation_id: string
  invocation_index: number
  metric_name: string
  score: number | null
  threshold: number
  eval_status: EvalStatus
  details: Record<string, unknown>
  /** Why the score is null (NOT_EVALUATED), in words. */
  reason?: string
}

/** A bad event, reported without ending the session. */
export type RejectedEvent = { index: number; message: string; path?: string }

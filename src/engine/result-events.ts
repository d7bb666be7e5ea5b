/**
 * The result stream's wire protocol, declared once: what a session's results stream (SSE `event:`
 * type and `data:` JSON, the proxy's `evalstream` frames, webhooks, the index and the exporters)
 * carries. The engine emits these, hosts log and stream them, `/openapi.json` documents them from
 * these schemas, and every consumer reads the inferred types; the union is discriminated on `type`,
 * so narrowing on it gives the data's shape without re-checking our own output.
 *
 * Result data objects are loose (extra keys pass): the run stream extends a criterion result with
 * the case it belongs to, and a client written today still reads a field added later.
 */
import * as z from 'zod'
import { lazySchema } from '../adk/lazy-schema.ts'
import { EVAL_STATUS_CODE, type EvalStatus } from '../adk/status.ts'

/** Every status a result can have (INFORMATIONAL: the efficiency metrics, which have no threshold). */
// Built at load (one instance): a lazy one would put the description the OpenAPI document gives it
// before its type, not after.
export const EvalStatusName: z.ZodEnum<{ [S in EvalStatus]: S }> = z.enum(Object.keys(EVAL_STATUS_CODE) as [EvalStatus, ...EvalStatus[]])

/** A bad event, reported without ending the session (also listed in an upload's summary). */
export type RejectedEvent = { index: number; message: string; path?: string }
export const RejectedEvent: z.ZodType<RejectedEvent> = lazySchema(() =>
  z.object({
    index: z.number().int(),
    message: z.string(),
    path: z.string().optional(),
  })
)

/** `data` of `invocation.started`: a new invocation opened. */
export type InvocationStarted = { invocation_id: string; invocation_index: number }
export const InvocationStarted: z.ZodType<InvocationStarted> = lazySchema(() =>
  z.object({ invocation_id: z.string(), invocation_index: z.number().int() })
)

/** The fields of a criterion result as zod schemas: the run stream and early verdicts extend them. */
export type CriterionResultShape = {
  invocation_id: z.ZodString
  invocation_index: z.ZodNumber
  metric_name: z.ZodString
  score: z.ZodNullable<z.ZodNumber>
  /** Null for the always-reported informational metrics. */
  threshold: z.ZodNullable<z.ZodNumber>
  eval_status: typeof EvalStatusName
  details: z.ZodRecord<z.ZodString, z.ZodUnknown>
  /** Why the score is null (NOT_EVALUATED), in words. */
  reason: z.ZodOptional<z.ZodString>
  /** How many times the invocation reopened before this result (absent for 0); the last one counts. */
  revision: z.ZodOptional<z.ZodNumber>
}

/** `data` of `criterion.result`: a decided score of one criterion for one invocation. */
export const CriterionResult: z.ZodLazy<z.ZodObject<CriterionResultShape, z.core.$loose>> = lazySchema(() =>
  z.looseObject({
    invocation_id: z.string(),
    invocation_index: z.number().int(),
    metric_name: z.string(),
    score: z.number().nullable(),
    threshold: z.number().nullable(),
    eval_status: EvalStatusName,
    details: z.record(z.string(), z.unknown()),
    reason: z.string().optional(),
    revision: z.number().int().optional(),
  })
)
export type CriterionResultData = z.infer<typeof CriterionResult>

/** `data` of `criterion.progress`: an early verdict before the invocation completes. */
export const CriterionProgress: z.ZodLazy<z.ZodObject<CriterionResultShape & { final: z.ZodBoolean }, z.core.$loose>> = lazySchema(() =>
  CriterionResult.unwrap().extend({
    final: z.boolean().describe('true: this score can no longer change'),
  })
)
export type CriterionProgressData = z.infer<typeof CriterionProgress>

/** `data` of `error`: a rejected event (`kind: 'rejected_event'` with the event's index and what was wrong). */
export type ResultErrorData = { kind: string; message?: string; index?: number; [key: string]: unknown }
export const ResultError: z.ZodType<ResultErrorData> = lazySchema(() =>
  z.looseObject({
    kind: z.string(),
    message: z.string().optional(),
    index: z.number().int().optional(),
  })
)

/**
 * `data` of the `error` frame that ends a results stream whose session was evicted or deleted:
 * why, in words. It is not a logged result (no seq, no key), so it is not in the union below.
 */
export type StreamClosed = { message: string }
export const StreamClosed: z.ZodType<StreamClosed> = lazySchema(() => z.object({ message: z.string() }))

/**
 * `data` of `case.result`: the EvalCaseResult in ADK's file shape (statuses 1-4), as the host writes
 * it (`evalCaseResultValue`); /openapi.json documents it with ADK's EvalCaseResult model.
 */
export type CaseResultFile = Record<string, unknown>
export const CaseResultFile: z.ZodType<CaseResultFile> = lazySchema(() => z.record(z.string(), z.unknown()))

/** Each result type and the schema of its `data`, in the order the stream documents them. */
export const RESULT_DATA = {
  'invocation.started': InvocationStarted,
  'criterion.progress': CriterionProgress,
  'criterion.result': CriterionResult,
  'case.result': CaseResultFile,
  error: ResultError,
} as const
export type ResultEventType = keyof typeof RESULT_DATA
/** The result types, as a schema (e.g. for frames that carry a result's type beside its data). */
export const ResultEventTypeName: z.ZodLazy<z.ZodEnum<{ [T in ResultEventType]: T }>> = lazySchema(() =>
  z.enum(
    Object.keys(RESULT_DATA) as [ResultEventType, ...ResultEventType[]],
  )
)

/** The `data` of each result type. */
export type ResultData<T extends ResultEventType> = z.infer<(typeof RESULT_DATA)[T]>

const body = <T extends ResultEventType>(type: T) => z.object({ type: z.literal(type), key: z.string(), data: RESULT_DATA[type] })
const logged = <T extends ResultEventType>(type: T) => body(type).extend({ seq: z.number().int() })

/**
 * A result as the host logs and streams it; the host's result log gives it a sequence number. `key`
 * names the result logically (e.g. `result/0/tool_trajectory_avg_score/0`, see result-keys.ts):
 * replaying the same inputs gives the same keys even when judged results come back in another
 * order, so a host rebuilding a session after an eviction skips exactly the results its log
 * already holds.
 */
export type ResultEventBody = { [T in ResultEventType]: { type: T; key: string; data: ResultData<T> } }[ResultEventType]
export const ResultEventBody: z.ZodType<ResultEventBody> = lazySchema(() =>
  z.discriminatedUnion('type', [
    body('invocation.started'),
    body('criterion.progress'),
    body('criterion.result'),
    body('case.result'),
    body('error'),
  ])
)

/** A result as stored and streamed: `seq` is monotonic per session and is the SSE `id:`. */
export type ResultEvent = { [T in ResultEventType]: { type: T; key: string; data: ResultData<T>; seq: number } }[ResultEventType]
export const ResultEvent: z.ZodType<ResultEvent> = lazySchema(() =>
  z.discriminatedUnion('type', [
    logged('invocation.started'),
    logged('criterion.progress'),
    logged('criterion.result'),
    logged('case.result'),
    logged('error'),
  ])
)

/**
 * A hosted run's event stream (`GET /v1/runs/{id}/results`), declared once as zod schemas: the
 * hosted run builds its events with the inferred types and /openapi.json documents the stream
 * from the same schemas. A run's `criterion.result` is the session's result (the engine's wire
 * schema) plus the case and run it belongs to.
 */
import * as z from 'zod'
import { lazySchema } from '../adk/lazy-schema.ts'
import { CriterionResult, type CriterionResultData } from '../engine/result-events.ts'

/** What a whole case can end as. */
type CaseStatus = 'PASSED' | 'FAILED' | 'NOT_EVALUATED'
const CaseStatusName = lazySchema(() => z.enum(['PASSED', 'FAILED', 'NOT_EVALUATED']))

/** Which unit of work (eval set, case, run number) an event is about. */
export type RunUnit = { eval_set_id: string; eval_id: string; run: number }
const runUnitShape = () => ({ eval_set_id: z.string(), eval_id: z.string(), run: z.number().int() })

/** The `data` of each run event type, in the order a run emits them. */
export type RunEventDataByType = {
  'run.started': { run_id: string; cases: number; units: number; invocations: number }
  'case.started': RunUnit
  'invocation.done': RunUnit & { invocation_index: number }
  /** The session's result, plus the case and run it belongs to. */
  'criterion.result': CriterionResultData & RunUnit
  'case.done': RunUnit & { status: CaseStatus; reason?: string; session_id?: string }
  'run.result': { run_id: string; passed?: boolean; error?: string; [key: string]: unknown }
}

/** Each run event type and the schema of its `data`, in the order a run emits them. */
export const RUN_EVENT_DATA: { [T in keyof RunEventDataByType]: z.ZodType<RunEventDataByType[T]> } = {
  'run.started': lazySchema(() =>
    z.object({ run_id: z.string(), cases: z.number().int(), units: z.number().int(), invocations: z.number().int() })
  ),
  'case.started': lazySchema(() => z.object(runUnitShape())),
  'invocation.done': lazySchema(() => z.object({ ...runUnitShape(), invocation_index: z.number().int() })),
  'criterion.result': lazySchema(() => CriterionResult.unwrap().extend(runUnitShape())),
  'case.done': lazySchema(() =>
    z.object({ ...runUnitShape(), status: CaseStatusName, reason: z.string().optional(), session_id: z.string().optional() })
  ),
  'run.result': lazySchema(() => z.looseObject({ run_id: z.string(), passed: z.boolean().optional(), error: z.string().optional() })),
}
export type RunEventType = keyof RunEventDataByType
export type RunEventData<T extends RunEventType> = RunEventDataByType[T]

/** One event of a run's log: `seq` is monotonic per run and is the SSE `id:`. */
export type RunEvent = { [T in RunEventType]: { seq: number; type: T; data: RunEventData<T> } }[RunEventType]

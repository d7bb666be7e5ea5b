/**
 * A hosted run's event stream (`GET /v1/runs/{id}/results`), declared once as zod schemas: the
 * hosted run builds its events with the inferred types and /openapi.json documents the stream
 * from the same schemas. A run's `criterion.result` is the session's result (the engine's wire
 * schema) plus the case and run it belongs to.
 */
import { z } from 'zod'
import { CriterionResult } from '../engine/result-events.ts'

/** What a whole case can end as. */
const CaseStatusName = z.enum(['PASSED', 'FAILED', 'NOT_EVALUATED'])

/** Which unit of work (eval set, case, run number) an event is about. */
const RunUnit = { eval_set_id: z.string(), eval_id: z.string(), run: z.number().int() }

/** Each run event type and the schema of its `data`, in the order a run emits them. */
export const RUN_EVENT_DATA = {
  'run.started': z.object({ run_id: z.string(), cases: z.number().int(), units: z.number().int(), invocations: z.number().int() }),
  'case.started': z.object(RunUnit),
  'invocation.done': z.object({ ...RunUnit, invocation_index: z.number().int() }),
  'criterion.result': CriterionResult.extend(RunUnit),
  'case.done': z.object({ ...RunUnit, status: CaseStatusName, reason: z.string().optional(), session_id: z.string().optional() }),
  'run.result': z.looseObject({ run_id: z.string(), passed: z.boolean().optional(), error: z.string().optional() }),
}
export type RunEventType = keyof typeof RUN_EVENT_DATA
export type RunEventData<T extends RunEventType> = z.infer<(typeof RUN_EVENT_DATA)[T]>

/** One event of a run's log: `seq` is monotonic per run and is the SSE `id:`. */
export type RunEvent = { [T in RunEventType]: { seq: number; type: T; data: RunEventData<T> } }[RunEventType]

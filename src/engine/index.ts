/**
 * `evalstream/engine`: one live evaluation session, from ADK events to result events, with the
 * judge behind a port. Re-exports only.
 *
 * @example
 * import { createSessionEngine } from 'evalstream/engine'
 * const created = createSessionEngine({ spec: { session_id: 's1' }, emit: (result) => console.log(result.type) })
 * if (created.ok) await created.engine.end() // logs 'case.result'
 */
export { createSessionEngine, DEFAULT_END_WAIT_MS, type SessionEngineOptions } from './session-engine.ts'
export type { CriterionResultData, SessionEngine, SessionSpec } from './types.ts'
// The result stream's wire protocol: zod schemas, each also the name of its inferred type.
export { RejectedEvent, RESULT_DATA, ResultEvent, ResultEventBody, type ResultEventType } from './result-events.ts'

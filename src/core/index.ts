/**
 * `evalstream/core`: ADK's evaluation criteria and the scoring primitives under them, pure
 * computation with no I/O (no judge service, no HTTP, no runtime globals). Re-exports only.
 *
 * @example
 * import { criterionByName, rouge1 } from 'evalstream/core'
 * criterionByName('response_match_score')?.name // 'response_match_score'
 * rouge1('the cat sat', 'the cat sat down').fmeasure // 0.857…
 */
export { porterStem } from './text/porter.ts'
export { tokenize, type TokenizerMode } from './text/tokenize.ts'
export { rouge1, type RougeScore, StreamingRouge } from './text/rouge.ts'
export { pythonEqual } from './python-equal.ts'
export {
  explainTrajectory,
  matchToolTrajectory,
  type MatchType,
  parseMatchType,
  type ToolCall,
  type TrajectoryExplanation,
} from './trajectory.ts'
export { evaluatedOnlyMeanAggregate, meanAggregate, rubricFlattenedAggregate } from './aggregate.ts'
export { caseStatus, type EvalStatus, statusFor } from '../adk/status.ts'
export { type CatalogueEntry, criteriaCatalogue, criterionByName } from './registry.ts'
export type { AnyCriterion, Criterion, InvocationScore, JudgeAnswer, JudgeRequest, Outcome, OverallScore } from './criterion.ts'
export { eventsToInvocations } from './events-to-invocations.ts'
export { createInvocationBuilder, type InvocationBuilder } from './invocation-builder.ts'

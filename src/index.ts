/**
 * evalstream's library surface: re-exports only. Everything here runs unchanged on Node, Deno,
 * Cloudflare Workers and in the browser; runtime-specific entry points live in src/adapter and
 * worker/. Narrower entry points: `evalstream/core`, `/ingest`, `/adk`, `/engine`, `/http`.
 *
 * "spec §x" in the source comments is a section of docs/spec/adk-criteria.md (ADK's semantics).
 *
 * @example
 * import { rouge1, matchToolTrajectory } from 'evalstream'
 * rouge1('the cat sat', 'the cat sat down').fmeasure // 0.857…
 * matchToolTrajectory([{ name: 'f', args: { x: 1 } }], [{ name: 'f', args: { x: 1.0 } }], 'EXACT') // true
 */

// Scoring primitives (bit-exact with ADK / rouge_score / NLTK)
export { porterStem } from './core/text/porter.ts'
export { tokenize, type TokenizerMode } from './core/text/tokenize.ts'
export { rouge1, StreamingRouge, type RougeScore } from './core/text/rouge.ts'
export { pythonEqual } from './core/python-equal.ts'
export {
  matchToolTrajectory,
  explainTrajectory,
  parseMatchType,
  type ToolCall,
  type MatchType,
  type TrajectoryExplanation,
} from './core/trajectory.ts'
export { meanAggregate, evaluatedOnlyMeanAggregate, rubricFlattenedAggregate } from './core/aggregate.ts'
export { caseStatus, statusFor, type EvalStatus } from './adk/status.ts'

// Criteria
export { criterionByName, criteriaCatalogue, type CatalogueEntry } from './core/registry.ts'
export type { Criterion, InvocationScore, JudgeRequest, JudgeAnswer, Outcome, OverallScore } from './core/criterion.ts'

// ADK's data model
export { parseEvalSet, type ParseEvalSetResult } from './adk/parse-eval-set.ts'
export { parseEvalConfig, evalMetricsOf, DEFAULT_EVAL_CONFIG, EvalConfig, type EvalMetric } from './adk/eval-config.ts'
export { EvalSet, EvalCase } from './adk/eval-set.ts'
export { Invocation, toolCallsOf, toolResponsesOf } from './adk/invocation.ts'
export { Content, Part, FunctionCall, FunctionResponse, contentText } from './adk/content.ts'
export { AdkEvent, isFinalResponse } from './adk/event.ts'
export { EvalCaseResult, EvalSetResult, evalSetResult } from './adk/results.ts'
export { evalSetResultJson, evalCaseResultJson, readEvalSetResult } from './adk/results-json.ts'

// Events: bytes -> ADK events -> invocations
export { createEventDecoder, decodeAll, EventDecoderStream, formatFromContentType, sniffFormat } from './ingest/index.ts'
export { eventsToInvocations } from './core/events-to-invocations.ts'
export { createInvocationBuilder } from './core/invocation-builder.ts'

// Live sessions, judges and the HTTP app
export { createSessionEngine, type SessionEngineOptions } from './engine/session-engine.ts'
export type { SessionEngine, ResultEvent, ResultEventBody, CriterionResultData } from './engine/types.ts'
export { judgeConfigFromEnv } from './judge/config.ts'
export { createJudgeExecutor } from './judge/executor.ts'
export { createApp, type AppDeps } from './http/app.ts'

// Eval sets run against a live ADK agent (`evalstream run`, POST /v1/runs)
export {
  runEvalSet,
  runEvalSets,
  planRun,
  staticTurns,
  userSimulationTurnSources,
  type SimulatorModel,
  AgentError,
  type AgentTarget,
  type EvalSetInput,
  type RunOptions,
  type RunProgress,
  type RunReport,
  type TurnSource,
  type CaseRunOutcome,
  type CaseVerdict,
} from './runner/index.ts'
export { progressDisplay } from './runner/progress-display.ts'
export { startHostedRun, type HostedRun, type RunEvent } from './runner/hosted-run.ts'

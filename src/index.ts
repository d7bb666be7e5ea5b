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
export { rouge1, type RougeScore, StreamingRouge } from './core/text/rouge.ts'
export { pythonEqual } from './core/python-equal.ts'
export {
  explainTrajectory,
  matchToolTrajectory,
  type MatchType,
  parseMatchType,
  type ToolCall,
  type TrajectoryExplanation,
} from './core/trajectory.ts'
export { evaluatedOnlyMeanAggregate, meanAggregate, rubricFlattenedAggregate } from './core/aggregate.ts'
export { caseStatus, type EvalStatus, statusFor } from './adk/status.ts'

// Criteria
export { type CatalogueEntry, criteriaCatalogue, criterionByName } from './core/registry.ts'
export type { Criterion, InvocationScore, JudgeAnswer, JudgeRequest, Outcome, OverallScore } from './core/criterion.ts'

// ADK's data model
export { parseEvalSet, type ParseEvalSetResult } from './adk/parse-eval-set.ts'
export { DEFAULT_EVAL_CONFIG, EvalConfig, type EvalMetric, evalMetricsOf, parseEvalConfig } from './adk/eval-config.ts'
export { EvalCase, EvalSet } from './adk/eval-set.ts'
export { Invocation, toolCallsOf, toolResponsesOf } from './adk/invocation.ts'
export { Content, contentText, FunctionCall, FunctionResponse, Part } from './adk/content.ts'
export { AdkEvent, isFinalResponse } from './adk/event.ts'
export { EvalCaseResult, EvalSetResult, evalSetResult } from './adk/results.ts'
export { evalCaseResultJson, evalSetResultJson, readEvalSetResult } from './adk/results-json.ts'

// Events: bytes -> ADK events -> invocations
export { createEventDecoder, decodeAll, EventDecoderStream, formatFromContentType, sniffFormat } from './ingest/index.ts'
export { eventsToInvocations } from './core/events-to-invocations.ts'
export { createInvocationBuilder } from './core/invocation-builder.ts'

// Live sessions, judges and the HTTP app
export { createSessionEngine, type SessionEngineOptions } from './engine/session-engine.ts'
export type { CriterionResultData, ResultEvent, ResultEventBody, SessionEngine } from './engine/types.ts'
export { judgeConfigFromEnv } from './config/judge-env.ts'
export { createJudgeExecutor } from './judge/executor.ts'
export { type AppDeps, createApp } from './http/app.ts'

// Eval sets run against a live ADK agent (`evalstream run`, POST /v1/runs)
export {
  AgentError,
  type AgentTarget,
  type CaseRunOutcome,
  type CaseVerdict,
  type EvalSetInput,
  planRun,
  runEvalSet,
  runEvalSets,
  type RunOptions,
  type RunProgress,
  type RunReport,
  type SimulatorModel,
  staticTurns,
  type TurnSource,
  userSimulationTurnSources,
} from './runner/index.ts'
export { progressDisplay } from './runner/progress-display.ts'
export { type HostedRun, type RunEvent, startHostedRun } from './runner/hosted-run.ts'

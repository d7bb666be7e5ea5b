/** src/runner: ADK eval sets run against a live agent (`evalstream run`, `POST /v1/runs`). */
export {
  AgentError,
  type AgentErrorKind,
  type AgentTarget,
  createAgentSession,
  DEFAULT_SESSION_TIMEOUT_MS,
  DEFAULT_TURN_TIMEOUT_MS,
  MAX_ERROR_BODY_CHARS,
  runTurn,
} from './agent-client.ts'
export { type CaseVerdict, caseVerdict, type MetricVerdict } from './aggregate-runs.ts'
export { type CaseRunOutcome, DEFAULT_USER_ID, MAX_TURNS, runCase, type Timeouts } from './run-case.ts'
export {
  DEFAULT_NUM_RUNS,
  DEFAULT_PARALLEL,
  type EvalSetInput,
  type EvalSetRun,
  MAX_NUM_RUNS,
  MAX_PARALLEL,
  planRun,
  runEvalSet,
  runEvalSets,
  type RunOptions,
  type RunProgress,
  type RunReport,
  type Totals,
  type UnitRef,
} from './run-eval-set.ts'
export {
  type ConversationSoFar,
  defaultTurnSources,
  staticTurns,
  type TurnSource,
  type TurnSourceContext,
  TurnSourceError,
  type TurnSourceFactory,
} from './turn-source.ts'
export {
  DEFAULT_MAX_ALLOWED_INVOCATIONS,
  DEFAULT_USER_SIMULATOR_MODEL,
  readUserSimulatorConfig,
  USER_SIMULATOR_STOP_SIGNAL,
  type UserSimulatorConfig,
} from './user-sim-config.ts'
export {
  NO_SIMULATOR_MODEL,
  simulatedTurns,
  type SimulationEnd,
  type SimulatorModel,
  userSimulationTurnSources,
} from './user-sim-source.ts'

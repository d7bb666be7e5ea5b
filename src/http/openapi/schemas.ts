/**
 * The zod schemas /openapi.json is generated from. Request bodies reuse the schemas the routes
 * validate with (CreateSessionRequest, and the ADK models the engine parses: EvalConfig, EvalCase,
 * EvalSet, AdkEvent), and the result stream's records are the engine's own wire schemas
 * (src/engine/result-events.ts); other answers the routes build as plain objects get a schema here,
 * which test/unit/http/openapi/contract.test.ts checks against real answers.
 */
import * as z from 'zod'
import { lazySchema } from '../../adk/lazy-schema.ts'
import { AdkEvent } from '../../adk/event.ts'
import { EvalConfig } from '../../adk/eval-config.ts'
import { EvalCase, EvalSet } from '../../adk/eval-set.ts'
import { EvalCaseResult } from '../../adk/results.ts'
import {
  CriterionProgress,
  CriterionResult,
  EvalStatusName,
  InvocationStarted,
  RejectedEvent,
  ResultError,
  ResultEventTypeName,
  StreamClosed,
} from '../../engine/result-events.ts'
import { RUN_EVENT_DATA } from '../../runner/run-events.ts'
import { CreateSessionRequest, SESSION_ID_PATTERN } from '../create-request.ts'

/** RFC 9457 problem details, with the extension members evalstream uses. */
export const Problem = lazySchema(() =>
  z.looseObject({
    type: z.string().describe('https://evalstream.dev/problems/<kind>'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().describe('what was wrong and where (event index, JSON path, limit name)'),
    instance: z.string().optional().describe('the request path'),
    limit: z.object({ name: z.string(), value: z.number() }).optional().describe('the limit that was hit'),
    path: z.string().optional().describe('JSON path of the offending value'),
  })
)

export const Health = lazySchema(() => z.object({ ok: z.literal(true) }))

export const CriteriaCatalogue = lazySchema(() =>
  z.object({
    criteria: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        reference_based: z.boolean(),
        judged: z.boolean(),
        informational: z.boolean().describe('reported on every session with no threshold (INFORMATIONAL); never configured'),
        interval: z
          .object({ min_value: z.number(), max_value: z.number() })
          .nullable()
          .describe("the scores' interval (ADK metric_info); null for informational metrics"),
        config_schema: z.record(z.string(), z.unknown()).describe('JSON Schema of the criterion entry in EvalConfig.criteria'),
      }),
    ),
  })
)

/** The create body as documented: the validated request with its raw parts typed as the models the engine parses them with. */
export const CreateSession = lazySchema(() =>
  CreateSessionRequest.unwrap().extend({
    eval_config: EvalConfig.optional().describe('ADK EvalConfig; the deployment default (EVALSTREAM_CONFIG) when absent'),
    eval_case: EvalCase.optional().describe('ADK EvalCase to follow; without it only reference-free criteria score'),
    eval_set: EvalSet.optional().describe('an ADK eval set; eval_id picks its case'),
  })
)

export const SessionCreated = lazySchema(() =>
  z.object({
    session_id: z.string(),
    urls: z.object({ self: z.string(), events: z.string(), results: z.string(), end: z.string() }),
  })
)

/** A result in the snapshot: the score fields of its `criterion.result`. */
const InvocationScore = lazySchema(() =>
  z.looseObject({
    score: z.number().nullable(),
    status: EvalStatusName.describe("the criterion's own status, else ADK's score >= threshold"),
    details: z.record(z.string(), z.unknown()).describe('empty when the criterion gave none'),
    reason: z.string().optional(),
  })
)

export const SessionSnapshot = lazySchema(() =>
  z.object({
    session_id: z.string(),
    ended: z.boolean(),
    metrics: z.array(z.string()),
    invocations: z.array(
      z.object({
        invocation_id: z.string(),
        invocation_index: z.number().int(),
        completed: z.boolean(),
        results: z.record(z.string(), InvocationScore.nullable()).describe('latest result of each metric; null until decided'),
      }),
    ),
    case_result: EvalCaseResult.nullable(),
  })
)

export const UploadSummary = lazySchema(() => z.object({ accepted: z.number().int(), rejected: z.array(RejectedEvent) }))

/** `upload.summary`, the last frame of a full-duplex upload; `error` and `limit` when it stopped early. */
export const UploadSummaryEvent = lazySchema(() =>
  UploadSummary.unwrap().extend({
    error: z.string().optional(),
    limit: z.object({ name: z.string(), value: z.number() }).optional(),
  })
)

/** The events body: one ADK event, or a JSON array of them (NDJSON and SSE carry the same events as text). */
export const EventsBody = lazySchema(() => z.union([AdkEvent, z.array(AdkEvent)]))

export const RunRequest = lazySchema(() =>
  z.object({
    run_id: z.string().regex(SESSION_ID_PATTERN).optional().describe('the run id to use (else a UUID); URL-safe like a session id'),
    eval_set: EvalSet,
    app_name: z.string().min(1).describe('the agent app to run (ADK app name)'),
    eval_config: EvalConfig.optional(),
    case_ids: z.array(z.string()).optional(),
    parallel: z.number().optional(),
    num_runs: z.number().optional(),
    session_timeout_ms: z.number().optional(),
    turn_timeout_ms: z.number().optional(),
    agent_url: z.string().optional().describe("must equal this deployment's AGENT_URL"),
  })
)

export const RunStarted = lazySchema(() =>
  z.object({ run_id: z.string(), urls: z.object({ self: z.string(), results: z.string(), cancel: z.string() }) })
)

export const RunCase = lazySchema(() =>
  z.object({
    eval_set_id: z.string(),
    eval_id: z.string(),
    run: z.number().int(),
    status: z.string().describe('RUNNING until the case is done, then PASSED, FAILED or NOT_EVALUATED'),
    reason: z.string().optional(),
    session_id: z.string().optional().describe(
      "the agent's ADK session the case ran in (the run scores it itself: not an evalstream session)",
    ),
  })
)

export const RunSnapshot = lazySchema(() =>
  z.object({
    run_id: z.string(),
    app_name: z.string(),
    started_at: z.string().describe('ISO 8601'),
    finished: z.boolean(),
    cases_done: z.number().int(),
    invocations_done: z.number().int(),
    failed: z.number().int(),
    not_evaluated: z.number().int(),
    last_seq: z.number().int(),
    cases: z.array(RunCase).describe('each case started so far, in the order started'),
  })
)

export const RunList = lazySchema(() => z.object({ runs: z.array(RunSnapshot).describe('newest first') }))

/** ADK api_server's /run_sse body (camelCase as ADK web sends it; snake_case is accepted too). */
export const RunAgentRequest = lazySchema(() =>
  z.looseObject({
    appName: z.string(),
    userId: z.string(),
    sessionId: z.string(),
    newMessage: z.record(z.string(), z.unknown()),
    streaming: z.boolean().optional(),
  })
)

/** An `error` frame of a results stream: a rejected event, or why the stream ends (session evicted or deleted). */
export const ResultStreamError = lazySchema(() => z.union([ResultError, StreamClosed]))

/** `event: evalstream` frames of a proxied stream. */
export const ProxiedResult = lazySchema(() =>
  z.object({ seq: z.number().int(), type: ResultEventTypeName, data: z.record(z.string(), z.unknown()) })
)

/**
 * Component names: every schema a route doc names must be here, so it becomes one
 * `#/components/schemas/<name>` and is shared by reference.
 */
export const NAMED_SCHEMAS: Record<string, z.ZodType> = {
  Problem,
  Health,
  CriteriaCatalogue,
  CreateSession,
  SessionCreated,
  SessionSnapshot,
  RejectedEvent,
  UploadSummary,
  UploadSummaryEvent,
  InvocationStarted,
  CriterionResult,
  CriterionProgress,
  ResultError,
  StreamClosed,
  ResultStreamError,
  EventsBody,
  AdkEvent,
  EvalConfig,
  EvalCase,
  EvalSet,
  EvalCaseResult,
  RunRequest,
  RunStarted,
  RunSnapshot,
  RunList,
  RunAgentRequest,
  ProxiedResult,
  ...Object.fromEntries(Object.entries(RUN_EVENT_DATA).map(([type, schema]) => [`RunEvent_${type.replace('.', '_')}`, schema])),
}

/** ADK's own models: they accept each field's camelCase alias too, which the document adds. */
export const ADK_MODELS = new Set(['AdkEvent', 'EvalConfig', 'EvalCase', 'EvalSet', 'EvalCaseResult'])

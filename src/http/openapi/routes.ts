/**
 * What each route of the core API says about itself in /openapi.json. A route added to the app
 * without a description here (or in another list passed to openApiRoute) fails
 * test/unit/http/openapi/openapi.test.ts. See docs/openapi.md.
 */
import type { ResultEventType } from '../../engine/types.ts'
import { RUN_EVENT_DATA } from '../../runner/run-events.ts'
import { describeRoute, type RouteDoc, type SseEventDoc } from './describe.ts'

const SESSION_ID = { id: 'the session id (1-200 characters of A-Z a-z 0-9 . _ ~ : -)' }
const LAST_EVENT_ID = { 'Last-Event-ID': 'resume after this seq (also ?last_event_id=)' }

/**
 * The event types of a session's results stream, each with the schema of its data: the keys are the
 * engine's result types (src/engine/result-events.ts), so a type added there is a compile error here
 * until it is documented. `case.result` is documented with ADK's EvalCaseResult model.
 */
export const RESULT_EVENTS: Record<ResultEventType, SseEventDoc> = {
  'invocation.started': { data: 'InvocationStarted', description: 'a new invocation opened' },
  'criterion.progress': {
    data: 'CriterionProgress',
    description: 'an early verdict before the invocation completes (e.g. a trajectory already diverged)',
  },
  'criterion.result': { data: 'CriterionResult', description: 'a decided score of one criterion for one invocation' },
  'case.result': { data: 'EvalCaseResult', description: "the case result in ADK's file shape, after /end; the stream closes after it" },
  error: { data: 'ResultStreamError', description: 'a rejected event, or the session was evicted or deleted (the stream ends)' },
}

const NOT_FOUND = 'no such session (or it belongs to another tenant)'
const GONE =
  "the session was evicted (idle, capacity or retention); the detail says which. Only the session's own tenant gets this; anyone else gets the 404"

export const API_ROUTES: RouteDoc[] = [
  describeRoute({
    method: 'get',
    path: '/healthz',
    tag: 'service',
    public: true,
    summary: 'Liveness',
    responses: { 200: { description: 'up', json: 'Health' } },
  }),
  describeRoute({
    method: 'get',
    path: '/openapi.json',
    tag: 'service',
    public: true,
    summary: 'This document',
    responses: {
      200: {
        description: 'OpenAPI 3.1, generated from the zod schemas the routes validate with',
        text: { mediaType: 'application/json', description: 'an OpenAPI 3.1 document' },
      },
    },
  }),
  describeRoute({
    method: 'get',
    path: '/metrics',
    tag: 'service',
    security: 'metricsToken',
    summary: 'Prometheus metrics (Node and Deno)',
    description: 'Text exposition format 0.0.4 (docs/metrics.md). 404 on Workers.',
    responses: {
      200: {
        description: 'the metrics',
        text: { mediaType: 'text/plain; version=0.0.4', description: 'Prometheus text exposition format 0.0.4' },
      },
      401: 'EVALSTREAM_METRICS_TOKEN is set and the request does not carry it',
      403: 'tenant tokens are configured but EVALSTREAM_METRICS_TOKEN is not',
      404: 'this runtime serves no metrics (Workers)',
    },
  }),
  describeRoute({
    method: 'get',
    path: '/v1/criteria',
    tag: 'criteria',
    public: true,
    summary: 'The criteria catalogue',
    responses: { 200: { description: 'every criterion with its config schema', json: 'CriteriaCatalogue' } },
  }),
  describeRoute({
    method: 'post',
    path: '/v1/sessions',
    tag: 'sessions',
    summary: 'Create a session',
    description:
      'Either `{eval_config?, eval_case?, session_id?}` or `{eval_set, eval_id, eval_config?, session_id?}`. Content-Type must be application/json.',
    body: { required: false, content: { 'application/json': 'CreateSession' } },
    responses: {
      201: { description: 'created', json: 'SessionCreated', headers: { Location: 'the session URL' } },
      400: 'invalid JSON or request, or a reserved session id',
      404: 'eval_id names no case of eval_set',
      409: 'a session with this id exists',
      413: 'the body is larger than EVALSTREAM_MAX_REQUEST_BYTES',
      415: 'the Content-Type is not application/json',
      422: 'the eval config, case or set is invalid, or the JSON is nested too deep / has too long strings',
      503:
        "the server holds EVALSTREAM_MAX_SESSIONS sessions and none of them is this tenant's to evict, or the sessions held reached EVALSTREAM_MAX_PROCESS_BYTES (Retry-After says when to try again)",
    },
  }),
  describeRoute({
    method: 'get',
    path: '/v1/sessions/:id',
    tag: 'sessions',
    params: SESSION_ID,
    summary: 'Results so far',
    responses: { 200: { description: 'the snapshot', json: 'SessionSnapshot' }, 404: NOT_FOUND, 410: GONE },
  }),
  describeRoute({
    method: 'delete',
    path: '/v1/sessions/:id',
    tag: 'sessions',
    params: SESSION_ID,
    summary: 'Delete a session (own tenant only)',
    responses: { 204: { description: 'deleted' }, 404: NOT_FOUND, 410: GONE },
  }),
  describeRoute({
    method: 'post',
    path: '/v1/sessions/:id/events',
    tag: 'sessions',
    params: SESSION_ID,
    headers: { Accept: '`text/event-stream` streams the results back while the body uploads (full duplex)' },
    summary: 'Upload events (scored while they upload)',
    body: {
      content: {
        'application/json': 'EventsBody',
        'application/x-ndjson': { text: 'one ADK event (JSON) per line' },
        'text/event-stream': { text: 'a captured ADK /run_sse stream (data: one ADK event)' },
      },
    },
    responses: {
      202: { description: 'accepted and rejected events (without Accept: text/event-stream)', json: 'UploadSummary' },
      200: {
        description: 'with Accept: text/event-stream: the results as they are decided, then upload.summary',
        sse: {
          ...RESULT_EVENTS,
          'upload.summary': { data: 'UploadSummaryEvent', description: 'the last frame: what was accepted and rejected' },
        },
      },
      400: 'the upload broke off',
      404: NOT_FOUND,
      409: 'the session has ended',
      410: GONE,
      413:
        'the body is larger than EVALSTREAM_MAX_REQUEST_BYTES (the rest is not read), or an event would take the session past EVALSTREAM_MAX_SESSION_BYTES (the events before it are kept)',
      415: 'not JSON, NDJSON or SSE',
      422: 'the session is at EVALSTREAM_MAX_EVENTS_PER_SESSION',
      503:
        'an event would take the sessions held past EVALSTREAM_MAX_PROCESS_BYTES (the events before it are kept; Retry-After says when to try again)',
    },
  }),
  describeRoute({
    method: 'get',
    path: '/v1/sessions/:id/results',
    tag: 'sessions',
    params: SESSION_ID,
    headers: LAST_EVENT_ID,
    query: { last_event_id: 'resume after this seq (for clients that cannot set headers)' },
    summary: 'Stream results (SSE)',
    responses: {
      200: { description: 'logged results after Last-Event-ID, then live ones; closes after case.result', sse: RESULT_EVENTS },
      404: NOT_FOUND,
      410: GONE,
    },
  }),
  describeRoute({
    method: 'post',
    path: '/v1/sessions/:id/end',
    tag: 'sessions',
    params: SESSION_ID,
    summary: 'End the session',
    description: 'Waits for pending judge calls and answers the case result.',
    responses: { 200: { description: "the case result in ADK's file shape", json: 'EvalCaseResult' }, 404: NOT_FOUND, 410: GONE },
  }),
  describeRoute({
    method: 'post',
    path: '/v1/runs',
    tag: 'runs',
    summary: 'Run an eval set against AGENT_URL',
    body: { content: { 'application/json': 'RunRequest' } },
    responses: {
      202: { description: 'started', json: 'RunStarted', headers: { Location: 'the run URL' } },
      400: 'no AGENT_URL, invalid JSON or fields',
      403: "agent_url is not this deployment's AGENT_URL",
      409: 'this tenant has a run with this run_id',
      413: 'the body is larger than the request byte limit',
      415: 'the Content-Type is not application/json',
      422: 'invalid eval_set or run, or the JSON is nested too deep / has too long strings',
      429: 'EVALSTREAM_MAX_ACTIVE_RUNS runs, or EVALSTREAM_MAX_ACTIVE_RUNS_PER_TENANT of this tenant, are in progress',
    },
  }),
  describeRoute({
    method: 'get',
    path: '/v1/runs',
    tag: 'runs',
    summary: "This tenant's eval-set runs, newest first, with their cases",
    responses: { 200: { description: 'the runs kept (at most 100; the oldest finished one goes first)', json: 'RunList' } },
  }),
  describeRoute({
    method: 'get',
    path: '/v1/runs/:id',
    tag: 'runs',
    params: { id: 'the run id' },
    summary: 'Run counts so far and its cases',
    responses: { 200: { description: 'counts', json: 'RunSnapshot' }, 404: 'no such run' },
  }),
  describeRoute({
    method: 'get',
    path: '/v1/runs/:id/results',
    tag: 'runs',
    params: { id: 'the run id' },
    headers: LAST_EVENT_ID,
    summary: 'Stream run progress (SSE)',
    responses: {
      200: {
        description: 'the run log after Last-Event-ID, then live; closes after run.result',
        sse: Object.fromEntries(
          Object.keys(RUN_EVENT_DATA).map((t) => [
            t,
            {
              data: `RunEvent_${t.replace('.', '_')}`,
              description: t === 'run.result' ? 'verdicts and EvalSetResults; the last event' : t,
            },
          ]),
        ),
      },
      404: 'no such run',
    },
  }),
  describeRoute({
    method: 'post',
    path: '/v1/runs/:id/cancel',
    tag: 'runs',
    params: { id: 'the run id' },
    summary: 'Cancel a run',
    responses: { 202: { description: 'cases not finished become NOT_EVALUATED', json: 'RunSnapshot' }, 404: 'no such run' },
  }),
  describeRoute({
    method: 'post',
    path: '/run_sse',
    tag: 'proxy',
    headers: {
      'X-Evalstream-Session': 'score into this existing session instead of the one named by the ADK session id',
      'X-Evalstream-Results': "`inline`: interleave result frames into the stream; `none` (default): the agent's frames only",
    },
    query: { evalstream_results: 'the same as X-Evalstream-Results, for clients that cannot set headers; never forwarded to the agent' },
    summary: "Proxy mode: the agent's /run_sse, scored",
    description:
      "Forwarded to AGENT_URL and scored as it streams. By default the client gets exactly the agent's frames (an agent frame named evalstream becomes agent-evalstream) and the results are on /v1/sessions/{id}/results, the id in X-Evalstream-Session. With `X-Evalstream-Results: inline` or `?evalstream_results=inline`, after each agent frame the results it caused follow as `event: evalstream` frames. Other ADK routes are forwarded unchanged.",
    body: { content: { 'application/json': 'RunAgentRequest' } },
    responses: {
      200: {
        description: "the agent's stream, with evalstream frames when asked for",
        headers: { 'X-Evalstream-Session': 'the session scored into', 'X-Evalstream-Note': 'why the run was not scored, when it was not' },
        sse: {
          message: {
            data: 'AdkEvent',
            description: "the agent's frames, unchanged (an agent frame named evalstream becomes agent-evalstream)",
          },
          evalstream: {
            data: 'ProxiedResult',
            description: 'with X-Evalstream-Results: inline only: a result, after the agent frame that caused it',
          },
        },
      },
      400:
        'X-Evalstream-Session is not a valid session id, X-Evalstream-Results or evalstream_results is not none or inline, or the body broke off',
      404: 'no AGENT_URL, or X-Evalstream-Session names no session',
      413: 'the body is larger than EVALSTREAM_MAX_REQUEST_BYTES',
      502: 'the agent could not be reached',
      504: 'the agent did not answer in time',
    },
  }),
]

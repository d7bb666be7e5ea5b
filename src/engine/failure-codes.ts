/**
 * Every way a request can fail, as one closed set of codes. A failure is made with its code
 * (`failure(code, title, detail)` in ./problem.ts, `problem(c, code, …)` in src/http/problem.ts)
 * and everything else about it is read from this table: the HTTP status it is answered with, the
 * `type` of its problem+json body (`https://evalstream.dev/problems/<type>`), and the label it is
 * counted under in Prometheus (the `reason` of evalstream_event_uploads_refused_total). Nothing
 * derives a reason from a status.
 *
 * To add a failure: add a line here (a status, the type of that status, a label no other code has),
 * make it with `failure('<code>', …)`, and name it in docs/architecture.md if it is a new kind.
 * The type of a status is the same for every code of it, so clients that branch on `type` keep
 * working; test/unit/engine/failure-codes.test.ts holds the table to that.
 */

/** What a code decides. `type` is the problem type's slug; `label` is its Prometheus label value. */
export type FailureSpec = { readonly status: number; readonly type: string; readonly label: string }

export const FAILURES = {
  // 400: the request is malformed; sending it again unchanged fails again.
  invalid_request: { status: 400, type: 'bad-request', label: 'invalid_request' },
  invalid_query: { status: 400, type: 'bad-request', label: 'invalid_query' },
  invalid_json: { status: 400, type: 'bad-request', label: 'invalid_json' },
  /** A session, run, app, eval set id or path segment outside its characters or length. */
  invalid_id: { status: 400, type: 'bad-request', label: 'invalid_id' },
  /** The request body broke off while it was read. */
  broken_body: { status: 400, type: 'bad-request', label: 'broken_body' },
  /** Eval set runs need AGENT_URL, and this deployment has none. */
  no_agent: { status: 400, type: 'bad-request', label: 'no_agent' },
  /** An operation names an eval set that does not exist (ADK web answers these with 400). */
  unknown_eval_set: { status: 400, type: 'bad-request', label: 'unknown_eval_set' },
  /** An eval set or case to create exists already (ADK web answers 400). */
  eval_item_exists: { status: 400, type: 'bad-request', label: 'eval_item_exists' },
  /** An error thrown below a route that carried a 4xx status of its own. */
  bad_request: { status: 400, type: 'bad-request', label: 'bad_request' },

  unauthorized: { status: 401, type: 'unauthorized', label: 'unauthorized' },

  other_tenant: { status: 403, type: 'forbidden', label: 'other_tenant' },
  agent_not_allowed: { status: 403, type: 'forbidden', label: 'agent_not_allowed' },
  metrics_not_enabled: { status: 403, type: 'forbidden', label: 'metrics_not_enabled' },

  route_not_found: { status: 404, type: 'not-found', label: 'route_not_found' },
  /** The route exists, but this deployment is built without what serves it (AGENT_URL, an index, /metrics, OTLP). */
  not_configured: { status: 404, type: 'not-found', label: 'not_configured' },
  session_not_found: { status: 404, type: 'not-found', label: 'session_not_found' },
  /** The agent has no such session (the Eval tab's add_session). */
  agent_session_not_found: { status: 404, type: 'not-found', label: 'agent_session_not_found' },
  run_not_found: { status: 404, type: 'not-found', label: 'run_not_found' },
  eval_set_not_found: { status: 404, type: 'not-found', label: 'eval_set_not_found' },
  eval_case_not_found: { status: 404, type: 'not-found', label: 'eval_case_not_found' },
  eval_result_not_found: { status: 404, type: 'not-found', label: 'eval_result_not_found' },

  method_not_allowed: { status: 405, type: 'method-not-allowed', label: 'method_not_allowed' },

  session_exists: { status: 409, type: 'conflict', label: 'session_exists' },
  run_exists: { status: 409, type: 'conflict', label: 'run_exists' },
  session_ended: { status: 409, type: 'conflict', label: 'session_ended' },
  /** MAX_EVAL_SETS_PER_APP. */
  too_many_eval_sets: { status: 409, type: 'conflict', label: 'too_many_eval_sets' },

  /** Let go without its client asking (idle, capacity, retention, memory). */
  session_evicted: { status: 410, type: 'gone', label: 'session_evicted' },

  /** The request's own byte limit (EVALSTREAM_MAX_REQUEST_BYTES and the like). */
  request_too_large: { status: 413, type: 'payload-too-large', label: 'too_large' },
  /** EVALSTREAM_MAX_SESSION_BYTES. */
  session_byte_budget: { status: 413, type: 'payload-too-large', label: 'session_bytes' },
  /** WORKER_MAX_SPEC_BYTES: a session's config and case on Workers. */
  spec_too_large: { status: 413, type: 'payload-too-large', label: 'spec_too_large' },

  unsupported_format: { status: 415, type: 'unsupported-media-type', label: 'unsupported_format' },

  /** EVALSTREAM_MAX_EVENTS_PER_SESSION. */
  session_full: { status: 422, type: 'unprocessable', label: 'session_full' },
  invalid_eval_config: { status: 422, type: 'unprocessable', label: 'invalid_eval_config' },
  invalid_eval_case: { status: 422, type: 'unprocessable', label: 'invalid_eval_case' },
  invalid_eval_set: { status: 422, type: 'unprocessable', label: 'invalid_eval_set' },
  /** An eval set run refused before it starts (its cases, options or config). */
  invalid_run: { status: 422, type: 'unprocessable', label: 'invalid_run' },
  /** JSON past EVALSTREAM_MAX_JSON_DEPTH or EVALSTREAM_MAX_STRING_LENGTH. */
  json_out_of_bounds: { status: 422, type: 'unprocessable', label: 'json_out_of_bounds' },

  /** The active run quotas (EVALSTREAM_MAX_ACTIVE_RUNS and the like). */
  too_many_runs: { status: 429, type: 'too-many-requests', label: 'too_many_runs' },

  internal: { status: 500, type: 'internal', label: 'internal_error' },
  misconfigured: { status: 500, type: 'internal', label: 'misconfigured' },

  agent_unreachable: { status: 502, type: 'bad-gateway', label: 'agent_unreachable' },
  bad_agent_answer: { status: 502, type: 'bad-gateway', label: 'bad_agent_answer' },

  /** EVALSTREAM_MAX_PROCESS_BYTES. */
  process_byte_budget: { status: 503, type: 'unavailable', label: 'process_bytes' },
  /** The event loop is late and busy (EVALSTREAM_ADMISSION_LAG_MS): no new session now. */
  at_capacity: { status: 503, type: 'unavailable', label: 'at_capacity' },
  /** EVALSTREAM_MAX_SESSIONS, all of them other tenants'. */
  no_room_for_session: { status: 503, type: 'unavailable', label: 'no_room_for_session' },

  agent_timeout: { status: 504, type: 'gateway-timeout', label: 'agent_timeout' },
} as const satisfies Record<string, FailureSpec>

export type FailureCode = keyof typeof FAILURES
export type FailureStatus<C extends FailureCode = FailureCode> = (typeof FAILURES)[C]['status']
export type FailureLabel<C extends FailureCode = FailureCode> = (typeof FAILURES)[C]['label']

export const FAILURE_CODES = Object.keys(FAILURES) as FailureCode[]

/** @example failureStatus('session_full') // 422 */
export function failureStatus<C extends FailureCode>(code: C): FailureStatus<C> {
  return FAILURES[code].status
}

/** @example failureLabel('session_byte_budget') // 'session_bytes' */
export function failureLabel<C extends FailureCode>(code: C): FailureLabel<C> {
  return FAILURES[code].label
}

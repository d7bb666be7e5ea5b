/**
 * /openapi.json entries for the dashboard and the monitoring routes (results-routes.ts,
 * conversation-route.ts, dashboard/routes.ts), with zod schemas of what they answer.
 */
import * as z from 'zod'
import { lazySchema } from '../adk/lazy-schema.ts'
import { describeRoute, type RouteDoc } from './openapi/describe.ts'

const Status = lazySchema(() => z.enum(['PASSED', 'FAILED', 'NOT_EVALUATED', 'INFORMATIONAL']))

const IndexedResult = lazySchema(() =>
  z.object({
    id: z.string(),
    session_id: z.string(),
    seq: z.number().int(),
    type: z.enum(['criterion.result', 'case.result', 'error']),
    at: z.string(),
    at_ms: z.number().int(),
    tenant: z.string().optional(),
    app: z.string().optional(),
    criterion: z.string().optional(),
    invocation_index: z.number().int().optional(),
    status: Status.optional(),
    score: z.number().nullable(),
    threshold: z.number().optional(),
    current: z.boolean().describe('false once a later revision of the same criterion on the same invocation replaced it'),
    data: z.record(z.string(), z.unknown()).describe('the result as streamed, or a summary with truncated: true'),
  })
)

export const ResultsPage = lazySchema(() =>
  z.object({ tenant: z.string().optional(), results: z.array(IndexedResult), next_cursor: z.string().nullable() })
)

const CriterionStats = lazySchema(() =>
  z.object({
    criterion: z.string(),
    total: z.number().int(),
    counts: z.object({
      PASSED: z.number().int(),
      FAILED: z.number().int(),
      NOT_EVALUATED: z.number().int(),
      INFORMATIONAL: z.number().int(),
    }),
    pass_rate: z.number().nullable().describe('passed / (passed + failed); null when neither'),
    mean_score: z.number().nullable().describe('mean of the scores (for INFORMATIONAL metrics: the mean value)'),
    score_buckets: z.array(z.object({ from: z.number(), to: z.number(), count: z.number().int() })),
    no_score: z.number().int(),
    out_of_range: z.number().int(),
    over_time: z.array(
      z.object({
        start_ms: z.number().int(),
        total: z.number().int(),
        passed: z.number().int(),
        failed: z.number().int(),
        not_evaluated: z.number().int(),
        informational: z.number().int(),
        pass_rate: z.number().nullable(),
        scored: z.number().int().describe('results in the bucket that have a score (the weight of its mean_score)'),
        mean_score: z.number().nullable(),
      }),
    ),
  })
)

export const Stats = lazySchema(() =>
  z.object({
    tenant: z.string().optional(),
    since: z.string(),
    until: z.string(),
    bucket_ms: z.number().int(),
    limits: z.object({ maxRows: z.number().int(), maxAgeMs: z.number().int() }),
    criteria: z.array(CriterionStats),
    apps: z.array(
      z.object({
        app: z.string().describe("the session's app (an OTLP trace's root agent); empty when none was named"),
        decided: z.number().int().describe('criterion results that are not INFORMATIONAL'),
        scored: z.number().int().describe('of those, PASSED or FAILED'),
        not_evaluated: z.number().int(),
        scorable_share: z.number().nullable().describe('scored / decided; null when nothing was decided'),
        not_evaluated_reasons: z.array(z.object({ reason: z.string(), count: z.number().int() }))
          .describe('the most frequent NOT_EVALUATED reasons (up to 3), e.g. message content not captured and the switch that captures it'),
      }),
    ).describe('per app: how much of its traffic could be scored'),
  })
)

const SessionSummary = lazySchema(() =>
  z.object({
    session_id: z.string(),
    tenant: z.string().optional(),
    app: z.string().optional(),
    first_at: z.string(),
    last_at: z.string(),
    invocations: z.number().int(),
    status: z.enum(['OPEN', 'PASSED', 'FAILED', 'NOT_EVALUATED']).describe('as its results left it'),
    gone: z.object({
      reason: z.enum(['deleted', 'idle', 'capacity', 'retention', 'memory']),
      detail: z.string(),
    }).optional().describe(
      'present when the server no longer holds the session (deleted or evicted; its results stay in the index). Node and Deno; a Worker does not say',
    ),
    criteria: z.record(
      z.string(),
      z.object({ passed: z.number().int(), failed: z.number().int(), not_evaluated: z.number().int(), informational: z.number().int() }),
    ),
  })
)

export const SessionList = lazySchema(() => z.object({ tenant: z.string().optional(), sessions: z.array(SessionSummary) }))

export const Conversation = lazySchema(() =>
  z.object({
    session_id: z.string(),
    ended: z.boolean(),
    dropped: z.number().int(),
    entries: z.array(
      z.object({
        index: z.number().int(),
        invocation_id: z.string(),
        author: z.string(),
        partial: z.boolean(),
        parts: z.array(
          z.union([
            z.object({ kind: z.literal('text'), text: z.string() }),
            z.object({ kind: z.literal('call'), name: z.string(), args: z.string() }),
            z.object({ kind: z.literal('response'), name: z.string() }),
          ]),
        ),
      }),
    ),
  })
)

const SCOPE = 'the caller\u2019s tenant only (tenant-less results in open mode)'
const TENANT = "must be the caller's own tenant if given (another is a 403)"
const errors = {
  400: 'a query parameter is invalid (the detail names it)',
  403: 'tenant names another tenant',
  404: 'this host keeps no results index',
}

export const RESULTS_DOCS: readonly RouteDoc[] = [
  describeRoute({
    method: 'get',
    path: '/',
    tag: 'dashboard',
    public: true,
    summary: 'The dashboard page',
    description: 'Public; the data it shows comes from the API with the token typed into the page.',
    responses: { 200: { description: 'the page', text: { mediaType: 'text/html', description: 'HTML' } } },
  }),
  describeRoute({
    method: 'get',
    path: '/dashboard/:file',
    tag: 'dashboard',
    public: true,
    summary: "The dashboard's assets",
    params: { file: 'style.css or main.js (the page script, one module)' },
    responses: {
      200: { description: 'the asset', text: { mediaType: 'text/javascript', description: 'a JavaScript module or the stylesheet' } },
      404: 'no such asset',
    },
  }),
  describeRoute({
    method: 'get',
    path: '/v1/results',
    tag: 'monitoring',
    summary: 'Decided results across sessions, newest first',
    description: `From the results index, ${SCOPE}.`,
    query: {
      criterion: 'metric name',
      status: 'PASSED, FAILED, NOT_EVALUATED or INFORMATIONAL',
      type: 'criterion.result, case.result or error',
      app: "the eval case's session_input.app_name",
      session: 'one session id',
      since: 'ms since the epoch or ISO 8601 (inclusive)',
      until: 'ms since the epoch or ISO 8601',
      limit: '1 to 1000, default 100',
      cursor: "the previous page's next_cursor",
      tenant: TENANT,
    },
    responses: { 200: { description: 'a page of results', json: { name: 'ResultsPage', schema: ResultsPage } }, ...errors },
  }),
  describeRoute({
    method: 'get',
    path: '/v1/stats',
    tag: 'monitoring',
    summary: 'Per-criterion aggregates: pass rate, counts, score and time buckets',
    description: `Current results only (a later revision replaces an earlier one), ${SCOPE}.`,
    query: {
      since: 'window start (default 24 h before until)',
      until: 'window end, exclusive (default: just after now, so a result of this millisecond counts)',
      bucket_ms: 'time bucket width (default window / 24; at most 500 buckets)',
      criterion: 'metric name',
      app: "the eval case's session_input.app_name",
      tenant: TENANT,
    },
    responses: { 200: { description: 'aggregates per criterion', json: { name: 'Stats', schema: Stats } }, ...errors },
  }),
  describeRoute({
    method: 'get',
    path: '/v1/sessions',
    tag: 'monitoring',
    summary: 'Open and recent sessions with their criteria\u2019s pass/fail',
    description: `Sessions with results, most recently active first, ${SCOPE}.`,
    query: { app: "the eval case's session_input.app_name", open: 'true or false', limit: '1 to 500, default 100', tenant: TENANT },
    responses: { 200: { description: 'sessions', json: { name: 'SessionList', schema: SessionList } }, ...errors },
  }),
  describeRoute({
    method: 'get',
    path: '/v1/sessions/:id/conversation',
    tag: 'sessions',
    summary: "A session's turns: text, tool calls and responses (bounded)",
    params: { id: 'session id' },
    responses: {
      200: { description: 'the conversation so far', json: { name: 'Conversation', schema: Conversation } },
      404: 'no such session (or another tenant\u2019s)',
      410: 'the session was evicted',
    },
  }),
]

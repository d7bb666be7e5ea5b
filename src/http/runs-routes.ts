/**
 * `/v1/runs`: run an ADK eval set against the agent this deployment fronts (AGENT_URL) and stream
 * the progress and results as SSE, like a session's results. The agent is only ever AGENT_URL:
 * a client cannot point the server at another address (no request forgery through evalstream).
 *
 *   POST /v1/runs               {eval_set, app_name, eval_config?, case_ids?, parallel?, num_runs?,
 *                                session_timeout_ms?, turn_timeout_ms?, agent_url?} -> 202 {run_id, urls}
 *   GET  /v1/runs               this tenant's runs, newest first, each with its cases as they stand
 *   GET  /v1/runs/{id}          counts so far and the cases as they stand
 *   GET  /v1/runs/{id}/results  SSE (id: seq; resume with Last-Event-ID), closes after run.result
 *   POST /v1/runs/{id}/cancel   cases not finished become NOT_EVALUATED
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import { isRecord } from '../adk/json.ts'
import { DEFAULT_RUN_QUOTAS } from '../runner/run-quotas.ts'
import { parseEvalSet } from '../adk/parse-eval-set.ts'
import type { AppDeps } from './deps.ts'
import { DEFAULT_LIMITS } from '../ingest/index.ts'
import { tenantOf } from './auth.ts'
import { parseCreateBody, SESSION_ID_PATTERN } from './create-request.ts'
import { type HostedRun, startHostedRun } from '../runner/hosted-run.ts'
import { memoryRunStore } from '../runner/run-store.ts'
import { problem } from './problem.ts'
import { pathSegmentProblem } from '../runner/path-segment.ts'
import { lastEventId, streamLog } from './results-stream.ts'

export { MAX_ACTIVE_RUNS, MAX_KEPT_RUNS } from '../runner/run-store.ts'

type Body = Record<string, unknown>

/** @example app.route('/v1/runs', runsRoutes(deps)) */
export function runsRoutes(deps: AppDeps): Hono {
  const app = new Hono()
  // Runs are kept per tenant: another tenant gets 404, as for sessions, and may reuse the id.
  const runs = deps.runs ?? memoryRunStore(deps.runQuotas ?? DEFAULT_RUN_QUOTAS)
  const limits = deps.limits ?? DEFAULT_LIMITS

  app.post('/', async (c) => {
    if (!deps.agentUrl) {
      return problem(c, 'no_agent', 'No agent', 'this deployment has no AGENT_URL; eval set runs go only to the configured agent')
    }
    // The same reading as a session create: a JSON type, the request byte limit (streamed), depth
    // and string bounds, all before the eval set parser walks it.
    const read = await parseCreateBody(c.req.raw, limits, 'a run')
    if (!read.ok) return problem(c, read.problem)
    if (!isRecord(read.value)) return problem(c, 'invalid_request', 'Invalid run request', 'the body must be a JSON object')
    const body: Body = read.value
    const fields = readFields(body)
    if ('error' in fields) return problem(c, 'invalid_request', 'Invalid run request', fields.error)
    if (fields.agentUrl !== undefined && !sameAgent(fields.agentUrl, deps.agentUrl)) {
      return problem(
        c,
        'agent_not_allowed',
        'Agent not allowed',
        `agent_url must be this deployment's AGENT_URL (${deps.agentUrl}); runs go nowhere else`,
      )
    }
    const parsed = parseEvalSet(body.eval_set, { source: 'eval_set' })
    if (!parsed.ok) return problem(c, 'invalid_eval_set', 'Invalid eval_set', parsed.error.message)
    const refused = runs.refusal(fields.runId, tenantOf(c))
    if (refused) return problem(c, refused.problem)
    const id = fields.runId ?? (deps.newId ?? (() => crypto.randomUUID()))()
    const started = startHostedRun(
      id,
      [{ evalSet: parsed.evalSet, evalConfig: body.eval_config ?? deps.defaultConfig, caseIds: fields.caseIds, source: 'eval_set' }],
      {
        agent: { url: deps.agentUrl, app: fields.app, fetch: deps.fetch },
        createEngine: deps.createEngine,
        simulator: deps.simulator,
        limits: deps.limits,
        parallel: fields.parallel,
        numRuns: fields.numRuns,
        timeouts: { sessionMs: fields.sessionMs, turnMs: fields.turnMs },
      },
    )
    if (!started.ok) return problem(c, 'invalid_run', 'Invalid run', started.error)
    runs.add(started.run, tenantOf(c))
    // Relative (or under EVALSTREAM_PUBLIC_URL): the request's Host is the client's word.
    const self = `${deps.publicUrl ?? ''}/v1/runs/${encodeURIComponent(id)}`
    return c.json({ run_id: id, urls: { self, results: `${self}/results`, cancel: `${self}/cancel` } }, 202, { location: self })
  })

  const withRun = (c: Context, then: (run: HostedRun) => Response | Promise<Response>) => {
    const id = c.req.param('id') ?? ''
    const run = runs.get(id, tenantOf(c))
    if (!run) return problem(c, 'run_not_found', 'Run not found', `no run with id '${id}'; start one with POST /v1/runs`)
    return then(run)
  }
  app.get('/', (c) => c.json({ runs: runs.list(tenantOf(c)).map((run) => run.snapshot()) }))
  app.get('/:id', (c) => withRun(c, (run) => c.json(run.snapshot())))
  app.get('/:id/results', (c) => withRun(c, (run) => streamLog(c, run, { after: lastEventId(c), endType: 'run.result' })))
  app.post('/:id/cancel', (c) =>
    withRun(c, (run) => {
      run.abort('cancelled by POST /v1/runs/{id}/cancel')
      return c.json(run.snapshot(), 202)
    }))
  return app
}

type Fields = {
  app: string
  runId?: string
  agentUrl?: string
  caseIds?: string[]
  parallel?: number
  numRuns?: number
  sessionMs?: number
  turnMs?: number
}

function readFields(body: Body): Fields | { error: string } {
  const app = body.app_name
  if (typeof app !== 'string' || app === '') return { error: 'app_name (the agent app to run, a string) is required' }
  const segment = pathSegmentProblem('app_name', app)
  if (segment) return { error: segment }
  if (body.eval_set === undefined) return { error: 'eval_set (an ADK eval set) is required' }
  const out: Fields = { app }
  // The Worker's router names the run (it picks the Durable Object by it); clients may too.
  if (body.run_id !== undefined) {
    if (typeof body.run_id !== 'string' || !SESSION_ID_PATTERN.test(body.run_id)) {
      return { error: 'run_id must be 1-200 characters of A-Z a-z 0-9 . _ ~ : -' }
    }
    out.runId = body.run_id
  }
  if (body.agent_url !== undefined) {
    if (typeof body.agent_url !== 'string') return { error: 'agent_url must be a string' }
    out.agentUrl = body.agent_url
  }
  if (body.case_ids !== undefined) {
    if (!Array.isArray(body.case_ids) || !body.case_ids.every((x) => typeof x === 'string')) {
      return { error: 'case_ids must be an array of strings' }
    }
    out.caseIds = body.case_ids as string[]
  }
  const numbers = [
    ['parallel', 'parallel'],
    ['num_runs', 'numRuns'],
    ['session_timeout_ms', 'sessionMs'],
    ['turn_timeout_ms', 'turnMs'],
  ] as const
  for (const [name, key] of numbers) {
    const v = body[name]
    if (v === undefined) continue
    if (typeof v !== 'number') return { error: `${name} must be a number` }
    out[key] = v
  }
  return out
}

function sameAgent(given: string, configured: string): boolean {
  try {
    const a = new URL(given)
    const b = new URL(configured)
    return a.origin === b.origin && a.pathname.replace(/\/+$/, '') === b.pathname.replace(/\/+$/, '')
  } catch {
    return false
  }
}

/**
 * Proxy mode's backend for the ADK web UI's Eval tab: the developer eval routes of ADK's dev server
 * under `/dev/apps/{app}/...`, in both spellings ADK accepts. ADK for JavaScript, Go and Java answer
 * them with 404/501, so the stock UI hides its Eval tab; in front of any of them, evalstream answers
 * instead and the tab works, with runs scored by evalstream. Any other `/dev/...` route (traces,
 * graphs, builder) is not matched here and goes on to the agent.
 *
 *   GET    eval_sets                        ["id", ...]             GET eval-sets -> {evalSetIds}
 *   POST   eval-sets {eval_set}             the new EvalSet         POST eval_sets/{id} (legacy)
 *   GET    eval_sets/{id} | eval-sets/{id}  EvalSet                 DELETE the same
 *   GET    eval_sets/{id}/evals             sorted case ids
 *   GET|PUT|DELETE eval_sets/{id}/evals/{case} | eval-sets/{id}/eval-cases/{case}
 *   POST   eval_sets/{id}/add_session | eval-sets/{id}/add-session  {evalId, sessionId, userId}
 *   POST   eval_sets/{id}/run_eval -> [RunEvalResult]    eval-sets/{id}/run -> {runEvalResults}
 *   GET    eval_results -> ["id"]  eval-results -> {evalResultIds}   GET eval_results/{id} | eval-results/{id}
 *   GET    metrics-info -> {metricsInfo}
 *
 * Answers are camelCase with nulls left out (ADK's `by_alias`, `exclude_none`); errors are
 * problem+json, whose `detail` is where ADK's `{"detail"}` is. Eval sets belong to the caller's tenant.
 */
import { type Context, Hono } from 'hono'
import { EvalCase, EvalSet } from '../../adk/eval-set.ts'
import type { AppDeps } from '../deps.ts'
import { type EvalScope, type EvalSetStore, memoryEvalSetStore } from './eval-set-store.ts'
import { tenantOf } from '../auth.ts'
import { problem } from '../problem.ts'
import { boundsIssue, DEFAULT_LIMITS, type Limits, violationIssue } from '../../ingest/index.ts'
import { scanJsonBounds } from '../../adk/json-scan.ts'
import { readTextLimited } from '../read-body.ts'
import { evalCaseFromSession } from './add-session.ts'
import { camelJson, forTheTab } from './camel.ts'
import { metricsInfo } from './metrics-info.ts'
import { readRunRequest, runAndStore } from './run.ts'
import { pathSegmentProblem } from '../../runner/path-segment.ts'
import { DEFAULT_RUN_QUOTAS, runRefusal } from '../../runner/run-quotas.ts'

/** A request body here (an eval case, a run request) is at most this many bytes. */
export const MAX_DEV_EVAL_BODY_BYTES = 10_000_000
/** ADK's eval set ids: letters, digits and underscores (its local manager checks the same). */
export const EVAL_SET_ID_PATTERN = /^[A-Za-z0-9_]{1,200}$/
/** App names as ADK's dev server takes them (identifiers, dot-separated), bounded. */
export const APP_NAME_PATTERN = /^(?!\.{1,2}$)[A-Za-z0-9_.-]{1,200}$/
/** Eval case ids: any 1-200 characters. */
export const MAX_EVAL_ID_CHARS = 200

type Handler = (c: Context, scope: EvalScope, store: EvalSetStore) => Response | Promise<Response>

/** @example app.route('/dev/apps', devEvalRoutes(deps)) */
export function devEvalRoutes(deps: AppDeps): Hono {
  const app = new Hono()
  const store = deps.evalSets ?? memoryEvalSetStore()
  // Runs in progress: in all, and per tenant (open mode has no tenant and only the process cap).
  let activeRuns = 0
  const activeByTenant = new Map<string, number>()
  const quotas = deps.runQuotas ?? DEFAULT_RUN_QUOTAS
  const json = (c: Context, value: unknown, status: 200 | 201 = 200) => c.json(camelJson(value) as object, status)

  /** Proxy mode only; a bad app name is refused before any storage is touched. */
  const route = (handler: Handler) => (c: Context) => {
    if (!deps.agentUrl) {
      return problem(
        c,
        'not_configured',
        'Not found',
        `no route ${c.req.method} ${new URL(c.req.url).pathname}; the Eval tab routes need AGENT_URL (proxy mode)`,
      )
    }
    const appName = c.req.param('app') ?? ''
    if (!APP_NAME_PATTERN.test(appName)) {
      return problem(
        c,
        'invalid_id',
        'Invalid app name',
        `app name '${appName}' must be 1-200 characters of A-Z a-z 0-9 _ . -, and not . or ..`,
      )
    }
    const tenant = tenantOf(c)
    return handler(c, tenant === undefined ? { app: appName } : { tenant, app: appName }, store)
  }
  /** `unknown_eval_set` (400) where the set is what an operation works on, as ADK web answers. */
  const loadSet = (
    c: Context,
    scope: EvalScope,
    code: 'eval_set_not_found' | 'unknown_eval_set' = 'eval_set_not_found',
  ): EvalSet | Response => {
    const id = c.req.param('set') ?? ''
    const text = store.getSet(scope, id)
    return text === undefined
      ? problem(c, code, 'Eval set not found', `app '${scope.app}' has no eval set '${id}'`)
      : (JSON.parse(text) as EvalSet)
  }
  const saveSet = (scope: EvalScope, set: EvalSet) => store.replaceSet(scope, set.eval_set_id, JSON.stringify(set), Date.now())

  const create = (c: Context, scope: EvalScope, id: string, answer: 'set' | 'null') => {
    if (!EVAL_SET_ID_PATTERN.test(id)) {
      return problem(c, 'invalid_id', 'Invalid eval set id', `eval set id '${id}' must be 1-200 letters, digits or underscores`)
    }
    const set: EvalSet = { eval_set_id: id, eval_cases: [], creation_timestamp: Date.now() / 1000 }
    const made = store.createSet(scope, id, JSON.stringify(set), Date.now())
    if (made === 'exists') return problem(c, 'eval_item_exists', 'Eval set exists', `eval set '${id}' already exists in app '${scope.app}'`)
    if (made === 'full') {
      return problem(
        c,
        'too_many_eval_sets',
        'Too many eval sets',
        `app '${scope.app}' already has the most eval sets kept (MAX_EVAL_SETS_PER_APP)`,
      )
    }
    return answer === 'set' ? json(c, set) : c.json(null)
  }
  app.post(
    '/:app/eval-sets',
    route(async (c, scope) => {
      const body = await readJson(c, deps.limits)
      if (body instanceof Response) return body
      const given = (body as { eval_set?: unknown; evalSet?: unknown }).eval_set ?? (body as { evalSet?: unknown }).evalSet
      const parsed = EvalSet.safeParse(given)
      if (!parsed.success) {
        return problem(
          c,
          'invalid_request',
          'Invalid eval set',
          `eval_set: ${parsed.error.issues[0]?.message ?? 'expected {"eval_set": {"eval_set_id": ...}}'}`,
        )
      }
      return create(c, scope, parsed.data.eval_set_id, 'set')
    }),
  )
  app.post('/:app/eval_sets/:set', route((c, scope) => create(c, scope, c.req.param('set') ?? '', 'null')))
  app.get('/:app/eval_sets', route((c, scope) => c.json(store.listSets(scope))))
  app.get('/:app/eval-sets', route((c, scope) => c.json({ evalSetIds: store.listSets(scope) })))
  for (const sets of ['eval_sets', 'eval-sets']) {
    app.get(`/:app/${sets}/:set`, route((c, scope) => orAnswer(loadSet(c, scope), (set) => json(c, set))))
    app.delete(
      `/:app/${sets}/:set`,
      route((c, scope) =>
        store.deleteSet(scope, c.req.param('set') ?? '')
          ? c.json(null)
          : problem(c, 'eval_set_not_found', 'Eval set not found', `app '${scope.app}' has no eval set '${c.req.param('set')}'`)
      ),
    )
  }
  app.get(
    '/:app/eval_sets/:set/evals',
    route((c, scope) => orAnswer(loadSet(c, scope, 'unknown_eval_set'), (set) => c.json(set.eval_cases.map((x) => x.eval_id).sort()))),
  )

  for (const cases of ['eval_sets/:set/evals/:case', 'eval-sets/:set/eval-cases/:case']) {
    const caseOf = (c: Context, scope: EvalScope) =>
      orAnswer(loadSet(c, scope), (set) => {
        const id = c.req.param('case') ?? ''
        const index = set.eval_cases.findIndex((x) => x.eval_id === id)
        return index >= 0
          ? { set, index, id }
          : problem(c, 'eval_case_not_found', 'Eval case not found', `eval set '${set.eval_set_id}' has no eval case '${id}'`)
      })
    app.get(`/:app/${cases}`, route((c, scope) => orAnswer(caseOf(c, scope), ({ set, index }) => json(c, set.eval_cases[index]))))
    app.delete(
      `/:app/${cases}`,
      route((c, scope) =>
        orAnswer(caseOf(c, scope), ({ set, index }) => {
          set.eval_cases.splice(index, 1)
          saveSet(scope, set)
          return c.json(null)
        })
      ),
    )
    app.put(
      `/:app/${cases}`,
      route(async (c, scope) => {
        const body = await readJson(c, deps.limits)
        if (body instanceof Response) return body
        const parsed = EvalCase.safeParse(body)
        if (!parsed.success) {
          const issue = parsed.error.issues[0]
          return problem(
            c,
            'invalid_request',
            'Invalid eval case',
            `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'not an ADK EvalCase'}`,
          )
        }
        // Read after the body, with no await between reading and writing the set.
        return orAnswer(caseOf(c, scope), ({ set, index, id }) => {
          if (parsed.data.eval_id && parsed.data.eval_id !== id) {
            return problem(
              c,
              'invalid_request',
              'Eval id mismatch',
              `the body's evalId '${parsed.data.eval_id}' is not the route's '${id}'`,
            )
          }
          set.eval_cases[index] = { ...parsed.data, eval_id: id }
          saveSet(scope, set)
          return c.json(null)
        })
      }),
    )
  }

  for (const path of ['eval_sets/:set/add_session', 'eval-sets/:set/add-session']) {
    app.post(
      `/:app/${path}`,
      route(async (c, scope) => {
        const body = await readJson(c, deps.limits)
        if (body instanceof Response) return body
        const b = body as Record<string, unknown>
        const [evalId, sessionId, userId] = [b.eval_id ?? b.evalId, b.session_id ?? b.sessionId, b.user_id ?? b.userId]
        if (typeof evalId !== 'string' || evalId === '' || evalId.length > MAX_EVAL_ID_CHARS) {
          return problem(c, 'invalid_request', 'Invalid request', `evalId must be a string of 1-${MAX_EVAL_ID_CHARS} characters`)
        }
        if (typeof sessionId !== 'string' || sessionId === '' || typeof userId !== 'string' || userId === '') {
          return problem(
            c,
            'invalid_request',
            'Invalid request',
            'sessionId and userId (the live session to turn into an eval case) are required strings',
          )
        }
        // Each names a path segment on the agent: '.' or '..' would reach another path there.
        const segment = pathSegmentProblem('userId', userId) ?? pathSegmentProblem('sessionId', sessionId)
        if (segment) return problem(c, 'invalid_request', 'Invalid request', segment)
        if (loadSet(c, scope) instanceof Response) return loadSet(c, scope) as Response
        const made = await evalCaseFromSession({
          agentUrl: deps.agentUrl!,
          fetch: deps.fetch ?? fetch,
          app: scope.app,
          userId,
          sessionId,
          evalId,
          nowSeconds: Date.now() / 1000,
        })
        if (!made.ok) return problem(c, made.problem)
        // The set is read again after the agent answered: another request may have changed it meanwhile.
        return orAnswer(loadSet(c, scope), (set) => {
          if (set.eval_cases.some((x) => x.eval_id === evalId)) {
            return problem(c, 'eval_item_exists', 'Eval case exists', `eval set '${set.eval_set_id}' already has an eval case '${evalId}'`)
          }
          set.eval_cases.push(made.evalCase)
          saveSet(scope, set)
          return c.json(null)
        })
      }),
    )
  }

  for (
    const [path, shape] of [
      ['eval_sets/:set/run_eval', 'list'],
      ['eval-sets/:set/run', 'object'],
    ] as const
  ) {
    app.post(
      `/:app/${path}`,
      route(async (c, scope) => {
        const body = await readJson(c, deps.limits)
        if (body instanceof Response) return body
        const request = readRunRequest(body, deps.defaultConfig)
        if (!request.ok) return problem(c, 'invalid_request', 'Invalid run request', request.error)
        const set = loadSet(c, scope, 'unknown_eval_set')
        if (set instanceof Response) return set
        const tenant = scope.tenant
        const ofTenant = tenant === undefined ? 0 : (activeByTenant.get(tenant) ?? 0)
        const busy = runRefusal(
          { total: activeRuns, ofTenant },
          tenant,
          { process: quotas.activeDevRuns, perTenant: quotas.activeDevRunsPerTenant },
          'Eval tab runs',
          {
            process: 'EVALSTREAM_MAX_ACTIVE_DEV_RUNS',
            perTenant: 'EVALSTREAM_MAX_ACTIVE_DEV_RUNS_PER_TENANT',
          },
        )
        if (busy) return problem(c, 'too_many_runs', 'Too many runs', busy)
        activeRuns += 1
        if (tenant !== undefined) activeByTenant.set(tenant, ofTenant + 1)
        try {
          const out = await runAndStore(deps, store, scope, set, request.request, c.req.raw.signal)
          if (!out.ok) return problem(c, out.problem)
          return shape === 'list' ? json(c, out.runEvalResults) : json(c, { run_eval_results: out.runEvalResults })
        } finally {
          activeRuns -= 1
          if (tenant !== undefined) {
            const left = (activeByTenant.get(tenant) ?? 1) - 1
            if (left > 0) activeByTenant.set(tenant, left)
            else activeByTenant.delete(tenant)
          }
        }
      }),
    )
  }

  app.get('/:app/eval_results', route((c, scope) => c.json(store.listResults(scope))))
  app.get('/:app/eval-results', route((c, scope) => c.json({ evalResultIds: store.listResults(scope) })))
  for (const results of ['eval_results', 'eval-results']) {
    app.get(
      `/:app/${results}/:result`,
      route((c, scope) => {
        const id = c.req.param('result') ?? ''
        const text = store.getResult(scope, id)
        if (text === undefined) {
          return problem(c, 'eval_result_not_found', 'Eval result not found', `app '${scope.app}' has no eval result '${id}'`)
        }
        const file = JSON.parse(text) as { eval_case_results?: Record<string, unknown>[] }
        return json(c, { ...file, eval_case_results: (file.eval_case_results ?? []).map(forTheTab) })
      }),
    )
  }
  app.get('/:app/metrics-info', route((c) => json(c, { metrics_info: metricsInfo() })))
  return app
}

function orAnswer<T, R>(value: T | Response, then: (value: T) => R): R | Response {
  return value instanceof Response ? value : then(value)
}

async function readJson(c: Context, limits: Limits = DEFAULT_LIMITS): Promise<unknown | Response> {
  const read = await readTextLimited(c.req.raw, MAX_DEV_EVAL_BODY_BYTES)
  if (!read.ok && read.reason === 'broken') return problem(c, 'broken_body', 'Body could not be read', read.error)
  if (!read.ok) {
    return problem(
      c,
      'request_too_large',
      'Request body too large',
      `the body is more than ${MAX_DEV_EVAL_BODY_BYTES} bytes (MAX_DEV_EVAL_BODY_BYTES)`,
    )
  }
  // Bounds on the raw text first, so an out-of-bounds body is never parsed.
  const found = scanJsonBounds(read.text, limits)
  if (found) {
    const issue = violationIssue(found, 0, limits)
    return problem(c, 'json_out_of_bounds', 'JSON out of bounds', `${issue.path ?? '$'}: ${issue.message}`)
  }
  try {
    const value: unknown = JSON.parse(read.text === '' ? '{}' : read.text)
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('expected a JSON object')
    // Bounded before zod walks it, as every body is (src/ingest/limits.ts).
    const bounds = boundsIssue(value, 0, limits)
    if (bounds) return problem(c, 'json_out_of_bounds', 'JSON out of bounds', `${bounds.path ?? '$'}: ${bounds.message}`)
    return value
  } catch (e) {
    return problem(c, 'invalid_json', 'Invalid JSON', `the request body is not a JSON object: ${(e as Error).message}`)
  }
}

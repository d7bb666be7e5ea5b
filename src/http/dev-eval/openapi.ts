/**
 * The Eval tab routes (routes.ts) as they describe themselves in /openapi.json. Bodies are ADK's
 * models in camelCase (EvalSet, EvalCase, RunEvalResult, EvalSetResult), given here as JSON
 * objects: their field lists are ADK's (docs/eval-tab.md), not evalstream's.
 */
import * as z from 'zod'
import { lazySchema } from '../../adk/lazy-schema.ts'
import { describeRoute, type RouteDoc } from '../openapi/describe.ts'

const Ids = { name: 'DevEvalIds', schema: lazySchema(() => z.array(z.string()).describe('ids, as ADK lists them')) }
const AdkModel = {
  name: 'DevEvalAdkModel',
  schema: lazySchema(() => z.looseObject({}).describe('an ADK model in camelCase (by_alias), nulls left out')),
}
const AdkModels = { name: 'DevEvalAdkModels', schema: lazySchema(() => z.array(z.looseObject({})).describe('ADK models in camelCase')) }
const Nothing = { name: 'DevEvalNull', schema: lazySchema(() => z.null().describe('JSON null, as ADK answers')) }
const TAG = 'eval tab'
const APP = { app: 'the agent app (1-200 characters of A-Z a-z 0-9 _ . -)' }
const SET = { ...APP, set: 'the eval set id ([A-Za-z0-9_]{1,200})' }
const CASE = { ...SET, case: 'the eval case id' }
const NO_SET = 'no such eval set of this tenant and app'

type Route = [
  method: RouteDoc['method'],
  path: string,
  summary: string,
  params: Record<string, string>,
  body: boolean,
  answer: RouteDoc['responses'][number],
]

const ROUTES: Route[] = [
  ['get', 'eval_sets', 'List eval sets (a JSON array; any answer but 404 shows the tab)', APP, false, {
    description: 'eval set ids, sorted',
    json: Ids,
  }],
  ['get', 'eval-sets', 'List eval sets ({evalSetIds})', APP, false, { description: '{evalSetIds}', json: AdkModel }],
  ['post', 'eval-sets', 'Create an eval set ({eval_set: {eval_set_id}}; only the id is taken, as in ADK)', APP, true, {
    description: 'the new EvalSet',
    json: AdkModel,
  }],
  ['post', 'eval_sets/:set', 'Create an eval set (legacy spelling)', SET, false, { description: 'null', json: Nothing }],
  ['get', 'eval_sets/:set', 'An eval set', SET, false, { description: 'the EvalSet', json: AdkModel }],
  ['get', 'eval-sets/:set', 'An eval set', SET, false, { description: 'the EvalSet', json: AdkModel }],
  ['delete', 'eval_sets/:set', 'Delete an eval set', SET, false, { description: 'null', json: Nothing }],
  ['delete', 'eval-sets/:set', 'Delete an eval set', SET, false, { description: 'null', json: Nothing }],
  ['get', 'eval_sets/:set/evals', 'List eval case ids, sorted', SET, false, { description: 'eval case ids', json: Ids }],
  ['post', 'eval_sets/:set/add_session', 'Turn a live agent session into an eval case ({evalId, sessionId, userId})', SET, true, {
    description: 'null',
    json: Nothing,
  }],
  ['post', 'eval-sets/:set/add-session', 'Turn a live agent session into an eval case', SET, true, { description: 'null', json: Nothing }],
  ['post', 'eval_sets/:set/run_eval', 'Run the eval set against AGENT_URL ({evalIds, evalMetrics})', SET, true, {
    description: 'RunEvalResults',
    json: AdkModels,
  }],
  ['post', 'eval-sets/:set/run', 'Run the eval set against AGENT_URL ({eval_case_ids, eval_metrics})', SET, true, {
    description: '{runEvalResults}',
    json: AdkModel,
  }],
  ['get', 'eval_results', 'List eval result ids, oldest first', APP, false, { description: 'eval result ids', json: Ids }],
  ['get', 'eval-results', 'List eval result ids ({evalResultIds})', APP, false, { description: '{evalResultIds}', json: AdkModel }],
  ['get', 'eval_results/:result', 'An eval result (EvalSetResult)', { ...APP, result: 'the eval result id' }, false, {
    description: 'the EvalSetResult',
    json: AdkModel,
  }],
  ['get', 'eval-results/:result', 'An eval result (EvalSetResult)', { ...APP, result: 'the eval result id' }, false, {
    description: 'the EvalSetResult',
    json: AdkModel,
  }],
  ['get', 'metrics-info', 'The metrics the run dialog offers (the criterion catalogue)', APP, false, {
    description: '{metricsInfo}',
    json: AdkModel,
  }],
]
for (const cases of ['eval_sets/:set/evals/:case', 'eval-sets/:set/eval-cases/:case']) {
  ROUTES.push(['get', cases, 'An eval case', CASE, false, { description: 'the EvalCase', json: AdkModel }])
  ROUTES.push(['put', cases, 'Replace an eval case (EvalCase, either casing)', CASE, true, { description: 'null', json: Nothing }])
  ROUTES.push(['delete', cases, 'Delete an eval case', CASE, false, { description: 'null', json: Nothing }])
}

/** @example openApiRoute(deps, devEvalDocs) */
export const devEvalDocs: RouteDoc[] = ROUTES.map(([method, path, summary, params, body, answer]) =>
  describeRoute({
    method,
    path: `/dev/apps/:app/${path}`,
    tag: TAG,
    summary,
    description: 'Proxy mode only (AGENT_URL); 404 otherwise. docs/eval-tab.md.',
    params,
    ...(body ? { body: { required: true, content: { 'application/json': AdkModel } } } : {}),
    responses: { 200: answer, 400: 'a bad id, body or run request', 404: NO_SET },
  })
)

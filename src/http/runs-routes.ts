/**
 * `/v1/runs`: run an ADK eval set against the agent this deployment fronts (AGENT_URL) and stream
 * the progress and results as SSE, like a session's results. The agent is only ever AGENT_URL:
 * a client cannot point the server at another address (no request forgery through evalstream).
 *
 *   POST /v1/runs               {eval_set, app_name, eval_config?, case_ids?, parallel?, num_runs?,
 *                                session_timeout_ms?, turn_timeout_ms?, agent_url?} -> 202 {run_id, urls}
 *   GET  /v1/runs/{id}          counts so far
 *   GET  /v1/runs/{id}/results  SSE (id: seq; resume with Last-Event-ID), closes after run.result
 *   POST /v1/runs/{id}/cancel   cases not finished become NOT_EVALUATED
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import { isRecord } from '../adk/json.ts'
import { parseEvalSet } from '../adk/parse-eval-set.ts'
import type { AppDeps } from './deps.ts'
import { DEFAULT_LIMITS } from '../ingest/index.ts'
import { tenantOf } from './auth.ts'
import { parseCreateBody, SESSION_ID_PATTERN } from './create-request.ts'
import { startHostedRun, type HostedRun, type RunEvent } from '../runner/hosted-run.ts'
import { problem } from './problem.ts'
import { HEARTBEAT_MS, lastEventId } from './results-stream.ts'
import { formatSseMessage } from './sse-frames.ts'

/** Runs in progress at once per process (or Durable Object); more get 429. */
export const MAX_ACTIVE_RUNS = 4
/** Finished runs kept for their results; the oldest finished one goes first. */
export const MAX_KEPT_RUNS = 100

type Body = Record<string, unknown>

/** @example app.route('/v1/runs', runsRoutes(deps)) */
export function runsRoutes(deps: AppDeps): Hono {
  const app = new Hono()
  // Each run remembers the tenant that started it: another tenant gets 404, as for sessions.
  const runs = new Map<string, { run: HostedRun; tenant: string | undefined }>()
  const limits = deps.limits ?? DEFAULT_LIMITS

  app.post('/', async (c) => {
    if (!deps.agentUrl) return problem(c, 400, 'No agent', 'this deployment has no AGENT_URL; eval set runs go only to the configured agent')
    // The same reading as a session create: a JSON type, the request byte limit (streamed), depth
    // and string bounds, all before the eval set parser walks it.
    const read = await parseCreateBody(c.req.raw, limits, 'a run')
    if (!read.ok) return problem(c, read.problem)
    if (!isRecord(read.value)) return problem(c, 400, 'Invalid run request', 'the body must be a JSON object')
    const body: Body = read.value
    const fields = readFields(body)
    if ('error' in fields) return problem(c, 400, 'Invalid run request', fields.error)
    if (fields.agentUrl !== undefined && !sameAgent(fields.agentUrl, deps.agentUrl))
      return problem(c, 403, 'Agent not allowed', `agent_url must be this deployment's AGENT_URL (${deps.agentUrl}); runs go nowhere else`)
    const parsed = parseEvalSet(body.eval_set, { source: 'eval_set' })
    if (!parsed.ok) return problem(c, 422, 'Invalid eval_set', parsed.error.message)
    if ([...runs.values()].filter((r) => !r.run.finished()).length >= MAX_ACTIVE_RUNS)
      return problem(c, 429, 'Too many runs', `${MAX_ACTIVE_RUNS} runs are in progress; try again when one finishes`)

    if (fields.runId !== undefined && runs.has(fields.runId)) return problem(c, 409, 'Run exists', `a run with id '${fields.runId}' exists`)
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
    if (!started.ok) return problem(c, 422, 'Invalid run', started.error)
    forgetOldest(runs)
    runs.set(id, { run: started.run, tenant: tenantOf(c) })
    // Relative (or under EVALSTREAM_PUBLIC_URL): the request's Host is the client's word.
    const self = `${deps.publicUrl ?? ''}/v1/runs/${encodeURIComponent(id)}`
    return c.json({ run_id: id, urls: { self, results: `${self}/results`, cancel: `${self}/cancel` } }, 202, { location: self })
  })

  const withRun = (c: Context, then: (run: HostedRun) => Response | Promise<Response>) => {
    const id = c.req.param('id') ?? ''
    const entry = runs.get(id)
    if (!entry || entry.tenant !== tenantOf(c)) return problem(c, 404, 'Run not found', `no run with id '${id}'; start one with POST /v1/runs`)
    return then(entry.run)
  }
  app.get('/:id', (c) => withRun(c, (run) => c.json(run.snapshot())))
  app.get('/:id/results', (c) => withRun(c, (run) => streamRun(c, run, lastEventId(c))))
  app.post('/:id/cancel', (c) =>
    withRun(c, (run) => {
      run.abort('cancelled by POST /v1/runs/{id}/cancel')
      return c.json(run.snapshot(), 202)
    }),
  )
  return app
}

type Fields = { app: string; runId?: string; agentUrl?: string; caseIds?: string[]; parallel?: number; numRuns?: number; sessionMs?: number; turnMs?: number }

function readFields(body: Body): Fields | { error: string } {
  const app = body.app_name
  if (typeof app !== 'string' || app === '') return { error: 'app_name (the agent app to run, a string) is required' }
  if (body.eval_set === undefined) return { error: 'eval_set (an ADK eval set) is required' }
  const out: Fields = { app }
  // The Worker's router names the run (it picks the Durable Object by it); clients may too.
  if (body.run_id !== undefined) {
    if (typeof body.run_id !== 'string' || !SESSION_ID_PATTERN.test(body.run_id))
      return { error: 'run_id must be 1-200 characters of A-Z a-z 0-9 . _ ~ : -' }
    out.runId = body.run_id
  }
  if (body.agent_url !== undefined) {
    if (typeof body.agent_url !== 'string') return { error: 'agent_url must be a string' }
    out.agentUrl = body.agent_url
  }
  if (body.case_ids !== undefined) {
    if (!Array.isArray(body.case_ids) || !body.case_ids.every((x) => typeof x === 'string')) return { error: 'case_ids must be an array of strings' }
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

function forgetOldest(runs: Map<string, { run: HostedRun }>): void {
  if (runs.size < MAX_KEPT_RUNS) return
  // Map order is insertion order: the first finished run is the oldest.
  for (const [id, { run }] of runs)
    if (run.finished()) {
      runs.delete(id)
      return
    }
}

/** The run's log as SSE from `after`, then live, closing after `run.result` or when the client leaves. */
function streamRun(c: Context, run: HostedRun, after: number): Response {
  return streamSSE(c, async (stream) => {
    const queue: RunEvent[] = []
    let wake: (() => void) | undefined
    let stopped = false
    const nudge = () => {
      const w = wake
      wake = undefined
      w?.()
    }
    const unsubscribe = run.subscribe((event) => {
      queue.push(event)
      nudge()
    })
    const stop = () => {
      stopped = true
      nudge()
    }
    stream.onAbort(stop)
    c.req.raw.signal.addEventListener('abort', stop, { once: true })
    const heartbeat = setInterval(() => void stream.write(': ping\n\n').catch(stop), HEARTBEAT_MS)
    let last = after
    const send = async (events: RunEvent[]): Promise<boolean> => {
      let batch = ''
      let done = false
      for (const e of events) {
        if (e.seq <= last) continue
        last = e.seq
        batch += formatSseMessage({ id: String(e.seq), event: e.type, data: JSON.stringify(e.data) })
        if (e.type === 'run.result') {
          done = true
          break
        }
      }
      if (batch !== '') await stream.write(batch)
      return done
    }
    try {
      if (await send(run.readAfter(after))) return
      while (!stopped) {
        if (await send(queue.splice(0))) return
        await new Promise<void>((resolve) => {
          wake = resolve
          if (queue.length > 0 || stopped) nudge()
        })
      }
    } finally {
      clearInterval(heartbeat)
      unsubscribe()
      c.req.raw.signal.removeEventListener('abort', stop)
    }
  })
}

/**
 * `/v1/sessions`: create, inspect, stream results, end. Events upload is in events-route.ts.
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import type { SessionSpec } from '../engine/types.ts'
import { resolveCreateRequest } from './create-request.ts'
import type { AppDeps } from '../host/deps.ts'
import { eventsRoute } from './events-route.ts'
import { problem } from './problem.ts'
import { lastEventId, streamResults } from './results-stream.ts'
import type { HostedSession } from '../host/session.ts'
import { goneDetail } from '../host/session-store.ts'

/** A create body is a config and maybe a case or eval set: generous, but bounded. */
export const MAX_CREATE_BODY_BYTES = 20_000_000

/**
 * @example app.route('/v1/sessions', sessionsRoutes(deps))
 */
export function sessionsRoutes(deps: AppDeps): Hono {
  const app = new Hono()

  app.post('/', async (c) => {
    const body = await readJson(c)
    if (!body.ok) return problem(c, 400, 'Invalid JSON', body.detail)
    const request = resolveCreateRequest(body.value)
    if (!request.ok) return problem(c, request.problem.status, request.problem.title, request.problem.detail)
    const spec: SessionSpec = {
      session_id: request.session_id ?? (deps.newId ?? (() => crypto.randomUUID()))(),
      eval_config: request.eval_config ?? deps.defaultConfig,
      ...(request.eval_case !== undefined ? { eval_case: request.eval_case } : {}),
    }
    const created = await deps.store.create(spec, deps.createEngine)
    if (!created.ok) return problem(c, created.status, created.title, created.detail)
    const base = new URL(c.req.url)
    const self = `${base.origin}/v1/sessions/${encodeURIComponent(spec.session_id)}`
    return c.json(
      {
        session_id: spec.session_id,
        urls: { events: `${self}/events`, results: `${self}/results`, end: `${self}/end`, self },
      },
      201,
      { location: self },
    )
  })

  const withSession = async (c: Context, then: (s: HostedSession) => Response | Promise<Response>) => {
    const id = c.req.param('id') ?? ''
    const session = await deps.store.get(id, deps.createEngine)
    if (!session) {
      // A session that went without its client asking (idle, cap, retention) is 410, not 404.
      const gone = await deps.store.gone(id)
      if (gone) return problem(c, 410, 'Session evicted', goneDetail(gone, deps.limits))
      return problem(c, 404, 'Session not found', `no session with id '${id}'; create it with POST /v1/sessions`)
    }
    return then(session)
  }

  app.delete('/:id', async (c) => {
    const id = c.req.param('id')
    if (await deps.store.delete(id)) return c.body(null, 204)
    return problem(c, 404, 'Session not found', `no session with id '${id}'`)
  })

  app.get('/:id', (c) => withSession(c, (s) => c.json(s.snapshot())))
  app.get('/:id/results', (c) => withSession(c, (s) => streamResults(c, s, { after: lastEventId(c) })))
  app.post('/:id/end', (c) => withSession(c, async (s) => c.json(await s.end())))
  app.post('/:id/events', (c) => withSession(c, (s) => eventsRoute(c, s)))
  return app
}

async function readJson(c: Context): Promise<{ ok: true; value: unknown } | { ok: false; detail: string }> {
  const text = await c.req.text()
  if (text.length > MAX_CREATE_BODY_BYTES)
    return { ok: false, detail: `the body is larger than ${MAX_CREATE_BODY_BYTES} bytes` }
  if (text.trim() === '') return { ok: true, value: {} }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (e) {
    return { ok: false, detail: `the request body is not JSON: ${(e as Error).message}` }
  }
}

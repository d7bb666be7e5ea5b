/**
 * `/v1/sessions`: create, inspect, stream results, end. Events upload is in events-route.ts.
 */
import type { Context } from 'hono'
import { admissionProblem } from './admission.ts'
import { Hono } from 'hono'
import type { SessionSpec } from '../engine/types.ts'
import { DEFAULT_LIMITS, type Limits } from '../ingest/index.ts'
import { reservedIdProblem, tenantField, tenantOf, visibleTo } from './auth.ts'
import { parseCreateBody, resolveCreateRequest } from './create-request.ts'
import type { AppDeps } from './deps.ts'
import { eventsRoute } from './events-route.ts'
import { problem } from './problem.ts'
import { lastEventId, streamResults } from './results-stream.ts'
import type { HostedSession } from '../session/session.ts'
import { goneDetail } from '../session/store.ts'

/**
 * Where a session's URLs point: relative to the service root, or under EVALSTREAM_PUBLIC_URL. A
 * request's Host header is the client's word, so it never goes into a URL we hand out.
 * @example sessionUrls('s1', undefined).self // '/v1/sessions/s1'
 */
export function sessionUrls(id: string, publicUrl: string | undefined) {
  const self = `${publicUrl ?? ''}/v1/sessions/${encodeURIComponent(id)}`
  return { events: `${self}/events`, results: `${self}/results`, end: `${self}/end`, self }
}

/**
 * A large JSON answer (a snapshot, a case result: ~200 KB) given as its UTF-8 bytes, made once for
 * its streams and answers. Given a string, @hono/node-server measured it (`Buffer.byteLength`) for
 * Content-Length and Node then wrote it through `writeUtf8String` after prepending the headers: two
 * passes over it plus a slower encoder, ~9% of a loaded server's main thread; the bytes' length is
 * known, and the socket takes them as they are. The same bytes on every runtime.
 * @example return jsonBytes(c, await session.snapshotBytes())
 */
export function jsonBytes(c: Context, bytes: Uint8Array<ArrayBuffer>): Response {
  return c.body(bytes, 200, { 'content-type': 'application/json' })
}

/**
 * @example app.route('/v1/sessions', sessionsRoutes(deps))
 */
export function sessionsRoutes(deps: AppDeps): Hono {
  const app = new Hono()
  const limits: Limits = deps.limits ?? DEFAULT_LIMITS

  app.post('/', async (c) => {
    // Refused before the body is read: an overloaded process spends nothing on a session it will not take.
    const refusal = deps.admission?.()
    if (refusal) {
      const refused = problem(c, admissionProblem(refusal).problem)
      refused.headers.set('Retry-After', String(refusal.retryAfterS))
      return refused
    }
    const body = await parseCreateBody(c.req.raw, limits)
    if (!body.ok) return problem(c, body.problem)
    const request = resolveCreateRequest(body.value)
    if (!request.ok) return problem(c, request.problem)
    const reserved = reservedIdProblem(tenantOf(c), request.session_id)
    if (reserved) return problem(c, 'invalid_request', 'Invalid session request', reserved)
    const hook = request.webhook &&
      (deps.exporters ? deps.exporters.sessionWebhookProblem(request.webhook) : 'this server delivers no webhooks')
    if (hook) return problem(c, 'invalid_request', 'Invalid session request', hook)
    const spec: SessionSpec = {
      session_id: request.session_id ?? (deps.newId ?? (() => crypto.randomUUID()))(),
      eval_config: request.eval_config ?? deps.defaultConfig,
      ...(request.eval_case !== undefined ? { eval_case: request.eval_case } : {}),
      ...tenantField(tenantOf(c)),
      ...(request.webhook ? { webhook: request.webhook } : {}),
    }
    const created = await deps.store.create(spec, deps.createEngine)
    if (!created.ok) return problem(c, created.problem)
    const urls = sessionUrls(spec.session_id, deps.publicUrl)
    return c.json({ session_id: spec.session_id, urls }, 201, { location: urls.self })
  })

  const withSession = async (c: Context, then: (s: HostedSession) => Response | Promise<Response>) => {
    const id = c.req.param('id') ?? ''
    const session = await deps.store.get(id, deps.createEngine)
    // Another tenant's session is answered exactly like a missing one.
    if (!session || !visibleTo(session, tenantOf(c))) {
      // A session that went without its client asking (idle, cap, retention) is 410, not 404.
      // Only the session's own tenant learns when and why it went; anyone else gets the 404.
      const gone = session ? undefined : await deps.store.gone(id)
      if (gone && gone.tenant === tenantOf(c)) return problem(c, 'session_evicted', 'Session evicted', goneDetail(gone, deps.sessionLimits))
      return problem(c, 'session_not_found', 'Session not found', `no session with id '${id}'; create it with POST /v1/sessions`)
    }
    return then(session)
  }

  // Through withSession, so a tenant can delete only its own sessions (others' are 404).
  app.delete('/:id', (c) =>
    withSession(c, async (s) => {
      if (await deps.store.delete(s.id)) return c.body(null, 204)
      return problem(c, 'session_not_found', 'Session not found', `no session with id '${s.id}'`)
    }))

  app.get('/:id', (c) => withSession(c, async (s) => jsonBytes(c, await s.snapshotBytes())))
  app.get('/:id/results', (c) => withSession(c, (s) => streamResults(c, s, { after: lastEventId(c) })))
  // The case result's bytes are the ones its case.result event was streamed with (its text made
  // once: about 200 KB for 50 invocations in ADK's file shape), not stringified or encoded again.
  app.post('/:id/end', (c) => withSession(c, async (s) => jsonBytes(c, await s.endBytes())))
  app.post('/:id/events', (c) => withSession(c, (s) => eventsRoute(c, s, limits, deps.turns)))
  return app
}

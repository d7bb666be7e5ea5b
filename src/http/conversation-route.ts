/**
 * `GET /v1/sessions/{id}/conversation`: what the agent and user said and which tools ran, per
 * event (src/session/transcript.ts), so the dashboard can show a session's conversation beside its
 * scores. Same visibility as the other session routes: another tenant's session is a 404.
 */
import type { Context } from 'hono'
import type { AppDeps } from './deps.ts'
import { goneDetail } from '../session/store.ts'
import { tenantOf, visibleTo } from './auth.ts'
import { problem } from './problem.ts'

/**
 * @example app.get('/v1/sessions/:id/conversation', (c) => conversation(c, deps))
 */
export async function conversation(c: Context, deps: AppDeps): Promise<Response> {
  const id = c.req.param('id') ?? ''
  const session = await deps.store.get(id, deps.createEngine)
  if (!session || !visibleTo(session, tenantOf(c))) {
    // Only the session's own tenant learns when and why it went; anyone else gets the 404.
    const gone = session ? undefined : await deps.store.gone(id)
    if (gone && gone.tenant === tenantOf(c)) return problem(c, 'session_evicted', 'Session evicted', goneDetail(gone, deps.sessionLimits))
    return problem(c, 'session_not_found', 'Session not found', `no session with id '${id}'`)
  }
  return c.json({ session_id: session.id, ended: session.ended, ...(await session.conversation()) })
}

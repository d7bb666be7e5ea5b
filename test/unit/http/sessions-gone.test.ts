/**
 * GET /v1/sessions marks the sessions the store no longer holds, while their results stay in the
 * index: deleted (DELETE /v1/sessions/{id}) and evicted (here for capacity: EVALSTREAM_MAX_SESSIONS),
 * each with the reason the session's own 410 would give; held sessions carry no mark, and the list
 * still validates against its documented schema.
 * Covers: src/http/sessions-routes.ts, src/http/gone-check.ts.
 */
import { describe, expect, it } from 'vitest'
import { SessionList } from '../../../src/http/results-docs.ts'
import { indexedHost } from '../../support/results-support.ts'

describe('gone sessions in GET /v1/sessions', () => {
  it('marks deleted and evicted sessions with why, and leaves held ones alone', async () => {
    const host = indexedHost({ EVALSTREAM_MAX_SESSIONS: '2' })
    await host.run('first')
    await host.run('second')
    // A third session makes room by evicting the least recently active one (`first`).
    await host.run('third')
    expect((await host.call('DELETE', '/v1/sessions/second')).status).toBe(204)
    const { sessions } = await host.json('/v1/sessions')
    expect(SessionList.safeParse({ sessions }).success).toBe(true)
    const byId = Object.fromEntries(sessions.map((s: any) => [s.session_id, s]))
    expect(byId.third.gone).toBeUndefined()
    expect(byId.second).toMatchObject({ status: 'PASSED', gone: { reason: 'deleted', detail: expect.stringContaining('deleted') } })
    expect(byId.first).toMatchObject({ status: 'PASSED', gone: { reason: 'capacity' } })
    // The same words as the session's own 410.
    const evicted = await host.call('GET', '/v1/sessions/first')
    expect(evicted.status).toBe(410)
    expect(((await evicted.json()) as { detail: string }).detail).toBe(byId.first.gone.detail)
  })
})

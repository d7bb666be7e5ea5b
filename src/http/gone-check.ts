/**
 * Which listed sessions the session store no longer holds, for GET /v1/sessions: the results index
 * keeps a session's results after the store lets it go, so without this the list would show a
 * deleted or evicted session as it last stood. Only where the store is in reach (Node, Deno; a
 * Worker's index lives in its own Durable Object, away from the sessions).
 */
import { goneDetail } from '../session/store.ts'
import type { AppDeps } from './deps.ts'
import type { GoneCheck } from './results-routes.ts'

/** undefined when the store cannot tell cheaply whether it holds a session. */
export function storeGoneCheck(deps: Pick<AppDeps, 'store' | 'sessionLimits'>): GoneCheck | undefined {
  const { store } = deps
  if (!store.holds) return undefined
  return async (id) => {
    if (store.holds!(id)) return undefined
    const notice = await store.gone(id)
    if (notice) return { reason: notice.reason, detail: goneDetail(notice, deps.sessionLimits) }
    // Deletion leaves no notice; an eviction's notice is kept for EVALSTREAM_GONE_NOTICE_MS only.
    return {
      reason: 'deleted',
      detail:
        `the server no longer holds session '${id}': it was deleted, or evicted longer ago than its notice is kept (EVALSTREAM_GONE_NOTICE_MS)`,
    }
  }
}

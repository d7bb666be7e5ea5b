/**
 * Every result any session of this host appends, in one place, for whoever watches across
 * sessions: exporters (OpenTelemetry, webhooks), counters (/metrics) and the results index
 * (/v1/results, /v1/stats). A result is published once, when its session's log first takes it:
 * a replay after a restart (or a Durable Object eviction) publishes nothing again.
 *
 * Watchers are called synchronously and must not block: one that has slow work to do (a network
 * export) queues it and returns. A watcher that throws is logged and kept; it never reaches the
 * session that produced the result.
 */
import { isRecord } from '../adk/json.ts'
import type { ResultEvent, SessionSpec, SessionWebhook } from '../engine/types.ts'

/** One result as watchers see it: which session (and whose), and the result as its log holds it. */
export type FedResult = {
  sessionId: string
  /** The tenant that owns the session (hosts with EVALSTREAM_TOKENS), else absent. */
  tenant?: string
  /** The ADK app the session's eval case names (`session_input.app_name`), when it names one. */
  appName?: string
  /** The session's own webhook (spec.webhook), for the webhook dispatcher. */
  webhook?: SessionWebhook
  event: ResultEvent
  /** When it was appended (ms since the epoch). */
  atMs: number
}

export type ResultWatcher = (result: FedResult) => void

export type ResultFeed = {
  publish(result: FedResult): void
  /** Returns the function that stops watching. */
  watch(watcher: ResultWatcher): () => void
  /** Watchers right now (a host with none skips building FedResults at all). */
  readonly watchers: number
}

/**
 * @example
 * const feed = createResultFeed()
 * feed.watch((r) => console.log(r.sessionId, r.event.type))
 */
export function createResultFeed(): ResultFeed {
  const watchers = new Set<ResultWatcher>()
  return {
    publish(result) {
      for (const watcher of watchers) {
        try {
          watcher(result)
        } catch (e) {
          console.error(`evalstream: a result watcher failed: ${e instanceof Error ? e.message : String(e)}`)
        }
      }
    },
    watch(watcher) {
      watchers.add(watcher)
      return () => void watchers.delete(watcher)
    },
    get watchers() {
      return watchers.size
    },
  }
}

/** What a feed says about a session, taken from its spec once. */
export function fedSession(spec: SessionSpec): Pick<FedResult, 'sessionId' | 'tenant' | 'appName' | 'webhook'> {
  // The case is the client's JSON until the engine parses it: read the one field defensively.
  const input = isRecord(spec.eval_case) ? spec.eval_case.session_input : undefined
  const appName = isRecord(input) && typeof input.app_name === 'string' ? input.app_name : spec.app_name
  return {
    sessionId: spec.session_id,
    ...(spec.tenant !== undefined ? { tenant: spec.tenant } : {}),
    ...(appName ? { appName } : {}),
    ...(spec.webhook ? { webhook: spec.webhook } : {}),
  }
}

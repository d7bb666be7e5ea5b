/**
 * The results index as a host sets it up: limits from the environment, fed from the host's result
 * feed. Node and Deno call it with their EVALSTREAM_DB (or an in-memory database); the Workers
 * index Durable Object builds its index directly, fed by the session objects.
 */
import type { ResultFeed } from './result-feed.ts'
import { sqliteResultsIndex, watchResults, type ResultsIndex } from './results-index.ts'
import { indexLimitsFromEnv } from './results-index-limits.ts'
import type { Sql } from './sql.ts'

export type IndexSetup = { ok: true; index: ResultsIndex; note: string; stop(): void } | { ok: false; error: string }

/**
 * @example
 * const setup = resultsIndexFromEnv(process.env, db.indexSql, deps.feed)
 * if (setup.ok) createApp({ ...deps, resultsIndex: setup.index })
 */
export function resultsIndexFromEnv(env: Record<string, string | undefined>, sql: Sql, feed: ResultFeed | undefined): IndexSetup {
  const limits = indexLimitsFromEnv(env)
  if (!limits.ok) return limits
  const index = sqliteResultsIndex(sql, { limits: limits.value })
  const stop = feed ? watchResults(feed, index) : () => {}
  const { maxRows, maxAgeMs } = limits.value
  return { ok: true, index, stop, note: `results index: at most ${maxRows} results, ${maxAgeMs} ms (EVALSTREAM_INDEX_MAX_ROWS, EVALSTREAM_INDEX_MAX_AGE_MS)` }
}

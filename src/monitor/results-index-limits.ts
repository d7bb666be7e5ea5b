/**
 * How much the results index keeps (/v1/results, /v1/stats, the session list): at most
 * `maxRows` results and none older than `maxAgeMs`, oldest dropped first. Both limits hold at
 * once; on Workers they apply per tenant (one index Durable Object each).
 */
/** Results kept at most (EVALSTREAM_INDEX_MAX_ROWS); a row is about 0.3-8 KB. */
export const DEFAULT_INDEX_MAX_ROWS = 200_000
/** Results older than this are dropped (EVALSTREAM_INDEX_MAX_AGE_MS): 30 days. */
export const DEFAULT_INDEX_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000
/** A result's `data` longer than this many characters (of JSON) is stored as a summary. */
export const MAX_INDEXED_DATA_CHARS = 8 * 1024
/** Age pruning runs at most this often (ms); reads never return older rows in between. */
export const AGE_PRUNE_INTERVAL_MS = 60_000

export type IndexLimits = { maxRows: number; maxAgeMs: number }

export const DEFAULT_INDEX_LIMITS: IndexLimits = { maxRows: DEFAULT_INDEX_MAX_ROWS, maxAgeMs: DEFAULT_INDEX_MAX_AGE_MS }

/** The variable behind each limit; each is a whole number >= 1. */
export const INDEX_LIMIT_VARS: Record<keyof IndexLimits, string> = {
  maxRows: 'EVALSTREAM_INDEX_MAX_ROWS',
  maxAgeMs: 'EVALSTREAM_INDEX_MAX_AGE_MS',
}

/**
 * The one limit only Workers have. Kept out of worker/index.ts: a Worker's entry module may export
 * only handlers and Durable Object classes.
 */

/**
 * Bytes of a session's stored spec (config and case as JSON): a Durable Object's SQLite row holds
 * at most 2 MB, and the spec is one row. Not configurable: it is the platform's limit.
 */
export const WORKER_MAX_SPEC_BYTES = 1_900_000

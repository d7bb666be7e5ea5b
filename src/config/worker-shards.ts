/**
 * How many Durable Objects a tenant's OTLP ingest and results index are spread over on Workers
 * (worker/otlp-shard.ts, worker/index-shards.ts). Both are per deployment, read once like every
 * other setting; docs/limits.md ("Workers: objects per tenant") says what each costs and what
 * changing one does.
 */
import { type Env, type Read, wholeNumbersFromEnv } from './env.ts'

/** OTLP shards per tenant: each trace belongs to one, by a hash of its trace id. */
export const DEFAULT_OTLP_SHARDS = 8
/** Results index shards per tenant: each session's results go to one, by a hash of its id. */
export const DEFAULT_INDEX_SHARDS = 4
/**
 * At most this many of either: a request touches up to this many objects (an OTLP request one per
 * shard its traces hash to, a results read every index shard), well inside the Workers Free plan's
 * 50 subrequests per request and its 6 connections open at once (the rest queue).
 */
export const MAX_SHARDS = 32

export type WorkerShards = { otlp: number; index: number }

/** @example workerShardsFromEnv({ EVALSTREAM_OTLP_SHARDS: '16' }) // { ok: true, value: { otlp: 16, index: 4 } } */
export function workerShardsFromEnv(env: Env): Read<WorkerShards> {
  return wholeNumbersFromEnv(
    env,
    { otlp: 'EVALSTREAM_OTLP_SHARDS', index: 'EVALSTREAM_INDEX_SHARDS' },
    { otlp: DEFAULT_OTLP_SHARDS, index: DEFAULT_INDEX_SHARDS },
    { otlp: { max: MAX_SHARDS }, index: { max: MAX_SHARDS } },
  )
}

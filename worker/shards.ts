/**
 * Which of a tenant's shard objects owns a key (a trace id, a session id): a stable hash of the key
 * mod the deployment's shard count (src/config/worker-shards.ts). The same key always lands on the
 * same shard while the count stays the same.
 */
import { fnv1a64 } from '../src/core/judging/request-id.ts'

/** @example shardOf('5b8efff798038103d269b633813fc60c', 8) // one of 0..7 */
export function shardOf(key: string, shards: number): number {
  return shards <= 1 ? 0 : parseInt(fnv1a64(key).slice(8), 16) % shards
}

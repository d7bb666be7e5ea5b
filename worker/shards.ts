/**
 * Which of a tenant's shard objects owns a key (a trace id, a session id): a stable hash of the key
 * mod the deployment's shard count (src/config/worker-shards.ts). The same key always lands on the
 * same shard while the count stays the same.
 */
import { fnv1a64 } from '../src/core/judging/request-id.ts'

/** @example shardOf('5b8efff798038103d269b633813fc60c', 8) // one of 0..7 */
export function shardOf(key: string, shards: number): number {
  if (shards <= 1) return 0
  const hex = fnv1a64(key)
  // FNV's low bits alone follow the last byte too closely (keys one letter apart fell on one shard
  // mod 3): both halves are folded and finished with murmur3's mixer, so every bit moves every bit.
  let h = (parseInt(hex.slice(0, 8), 16) ^ parseInt(hex.slice(8), 16)) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return ((h ^ (h >>> 16)) >>> 0) % shards
}

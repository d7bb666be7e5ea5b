/**
 * A session object's new results, sent on to its index shard (index-object.ts, index-shards.ts:
 * one of its tenant's EVALSTREAM_INDEX_SHARDS, by a hash of the session id). The feed
 * watcher only queues (watchers must be quick); a flush a microtask later sends the queue in
 * batches, retrying a failed batch a few times. The index recognises a batch it already took, so
 * a retry after a lost answer counts nothing twice. The queue is bounded: past MAX_INDEX_QUEUE the
 * oldest results are dropped and counted in the log, never blocking the session.
 */
import type { FedResult, ResultFeed } from '../src/session/result-feed.ts'
import { MAX_RECORD_BATCH, RECORD_PATH } from './index-object.ts'
import type { DurableObjectNamespace } from './types.ts'
import { indexShardStub } from './index-shards.ts'
import { shardOf } from './shards.ts'

/** Results waiting for the index at most; older ones are dropped first. */
export const MAX_INDEX_QUEUE = 5_000
/** Attempts per batch, with INDEX_RETRY_BASE_MS doubling between them. */
export const INDEX_ATTEMPTS = 4
export const INDEX_RETRY_BASE_MS = 200

/**
 * @example const indexing = forwardResults(setup.deps.feed, env.INDEX, 4)
 */
export function forwardResults(
  feed: ResultFeed,
  namespace: DurableObjectNamespace,
  shards: number,
): { idle(): Promise<void>; stop(): void } {
  let queue: FedResult[] = []
  let dropped = 0
  let flushing: Promise<void> | undefined

  const send = async (batch: FedResult[]) => {
    const first = batch[0]!
    for (let attempt = 1;; attempt++) {
      try {
        const response = await indexShardStub(namespace, first.tenant, shardOf(first.sessionId, shards)).fetch(
          new Request(`https://index${RECORD_PATH}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(batch),
          }),
        )
        await response.body?.cancel()
        if (response.ok) return
        throw new Error(`index answered ${response.status}`)
      } catch (e) {
        if (attempt >= INDEX_ATTEMPTS) {
          console.error(`evalstream: ${batch.length} result(s) not indexed: ${e instanceof Error ? e.message : String(e)}`)
          return
        }
        await new Promise((r) => setTimeout(r, INDEX_RETRY_BASE_MS * 2 ** (attempt - 1)))
      }
    }
  }
  const flush = async () => {
    while (queue.length > 0) {
      // A batch goes to one session's shard (a session object serves one session, so in practice all).
      const { tenant, sessionId } = queue[0]!
      let n = 0
      while (n < queue.length && n < MAX_RECORD_BATCH && queue[n]!.tenant === tenant && queue[n]!.sessionId === sessionId) n++
      const batch = queue.slice(0, n)
      queue = queue.slice(batch.length)
      await send(batch)
    }
    flushing = undefined
  }
  const stop = feed.watch((result) => {
    queue.push(result)
    if (queue.length > MAX_INDEX_QUEUE) {
      queue.shift()
      if (++dropped % 100 === 1) console.error(`evalstream: index queue full (${MAX_INDEX_QUEUE}); ${dropped} result(s) dropped so far`)
    }
    flushing ??= Promise.resolve().then(flush)
  })
  return { idle: async () => void (await flushing), stop }
}

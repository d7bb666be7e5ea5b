/**
 * Where judge answers are kept by request id, so a replay (a Durable Object waking up, a re-run of
 * the same session) never pays for the same call twice. The interface is async-capable so a
 * Durable Object can back it with its storage; the default is an in-memory LRU.
 */
import type { JudgeAnswer } from '../core/criterion.ts'

export interface JudgeCache {
  get(id: string): Promise<JudgeAnswer | undefined> | JudgeAnswer | undefined
  put(id: string, answer: JudgeAnswer): Promise<void> | void
}

/** Default size of the in-memory cache: answers are a few KB, so this stays in the tens of MB. */
export const DEFAULT_CACHE_ENTRIES = 10_000

export type MemoryJudgeCache = {
  get(id: string): JudgeAnswer | undefined
  put(id: string, answer: JudgeAnswer): void
  size(): number
}

/**
 * An in-memory least-recently-used cache (synchronous, so it satisfies JudgeCache).
 * @example
 * const cache = createMemoryJudgeCache(1000)
 * cache.put('r1', answer); cache.get('r1') // answer
 */
export function createMemoryJudgeCache(maxEntries = DEFAULT_CACHE_ENTRIES): MemoryJudgeCache {
  const entries = new Map<string, JudgeAnswer>()
  return {
    get(id) {
      const hit = entries.get(id)
      if (hit === undefined) return undefined
      // Map keeps insertion order: re-inserting marks the entry as most recently used.
      entries.delete(id)
      entries.set(id, hit)
      return hit
    },
    put(id, answer) {
      entries.delete(id)
      entries.set(id, answer)
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value
        if (oldest === undefined) break
        entries.delete(oldest)
      }
    },
    size: () => entries.size,
  }
}

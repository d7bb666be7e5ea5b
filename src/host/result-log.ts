/**
 * The result log of one session: assigns each result its sequence number, keeps every result so a
 * subscriber can resume from any `Last-Event-ID`, and fans new results out to live subscribers.
 * Where the results are kept is a port (`ResultStorage`): memory on Node/Deno, SQLite in the
 * Durable Object. Subscribers always live in memory: they are open HTTP responses.
 */
import type { ResultEvent, ResultEventBody } from '../engine/types.ts'

/** Where a log keeps its results. `insert` is called with strictly increasing seq, starting at 1. */
export interface ResultStorage {
  lastSeq(): number
  insert(event: ResultEvent): void
  /** Results with seq > afterSeq, in seq order. */
  readAfter(afterSeq: number): ResultEvent[]
}

export type ResultListener = (event: ResultEvent) => void

export interface ResultLog {
  /** Gives the body the next seq, stores it and tells every subscriber. */
  append(body: ResultEventBody): ResultEvent
  readAfter(afterSeq: number): ResultEvent[]
  lastSeq(): number
  /** Returns the function that unsubscribes. */
  subscribe(listener: ResultListener): () => void
  /** Live subscribers (open result streams, proxied runs): shows that a client that left is gone. */
  subscriberCount(): number
}

/**
 * @example
 * const log = createResultLog(memoryResultStorage())
 * log.append({ type: 'invocation.started', key: 'started/0', data: {} }).seq // 1
 */
export function createResultLog(storage: ResultStorage): ResultLog {
  const listeners = new Set<ResultListener>()
  let last = storage.lastSeq()
  return {
    append(body) {
      last += 1
      const event: ResultEvent = { seq: last, type: body.type, key: body.key, data: body.data }
      storage.insert(event)
      // Copy first: a listener may unsubscribe itself (stream closing on case.result).
      for (const listener of [...listeners]) {
        try {
          listener(event)
        } catch {
          // One broken subscriber must not stop the others or the engine that emitted.
          listeners.delete(listener)
        }
      }
      return event
    },
    readAfter: (afterSeq) => storage.readAfter(afterSeq),
    lastSeq: () => last,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    subscriberCount: () => listeners.size,
  }
}

/**
 * @example
 * const storage = memoryResultStorage()
 */
export function memoryResultStorage(): ResultStorage {
  const events: ResultEvent[] = []
  return {
    lastSeq: () => events.length,
    insert: (event) => void events.push(event),
    // seq n sits at index n - 1, so resuming is a slice, not a scan.
    readAfter: (afterSeq) => events.slice(Math.max(0, afterSeq)),
  }
}

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
  /** Up to `limit` results after `afterSeq` as key and seq, without their data (what a replay needs to recognise them). */
  keys?(afterSeq: number, limit: number): Array<{ key: string; seq: number }>
}

export type ResultListener = (event: ResultEvent) => void

/** Why a log stopped for good (its session was evicted or deleted): sent as an `error` frame. */
export type LogClosing = { message: string }
export type CloseListener = (closing: LogClosing) => void

export interface ResultLog {
  /** Gives the body the next seq, stores it and tells every subscriber. */
  append(body: ResultEventBody): ResultEvent
  readAfter(afterSeq: number): ResultEvent[]
  /** Up to `limit` logged results after `afterSeq`, as key and seq: read a page at a time. */
  keys(afterSeq: number, limit: number): Array<{ key: string; seq: number }>
  lastSeq(): number
  /**
   * Returns the function that unsubscribes. `onClose` hears when the log is closed; subscribing to
   * a closed log hears it at once (on a microtask), so no subscriber waits for a session that left.
   */
  subscribe(listener: ResultListener, onClose?: CloseListener): () => void
  /** Tells every subscriber the log is done and drops them; appends after this are ignored. */
  close(closing: LogClosing): void
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
  const closeListeners = new Map<ResultListener, CloseListener>()
  let closed: LogClosing | undefined
  let last = storage.lastSeq()
  return {
    append(body) {
      // A closed log's storage may already be deleted: the result goes nowhere.
      if (closed) return { seq: last, type: body.type, key: body.key, data: body.data }
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
    keys: (afterSeq, limit) =>
      storage.keys?.(afterSeq, limit) ?? storage.readAfter(afterSeq).slice(0, limit).map(({ key, seq }) => ({ key, seq })),
    lastSeq: () => last,
    subscribe(listener, onClose) {
      if (closed) {
        const closing = closed
        if (onClose) queueMicrotask(() => onClose(closing))
        return () => false
      }
      listeners.add(listener)
      if (onClose) closeListeners.set(listener, onClose)
      return () => {
        closeListeners.delete(listener)
        return listeners.delete(listener)
      }
    },
    close(closing) {
      if (closed) return
      closed = closing
      const toTell = [...closeListeners.values()]
      listeners.clear()
      closeListeners.clear()
      for (const onClose of toTell) {
        try {
          onClose(closing)
        } catch {
          // A subscriber that cannot be told is dropped all the same.
        }
      }
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

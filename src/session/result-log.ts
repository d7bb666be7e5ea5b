/**
 * The result log of one session: assigns each result its sequence number, keeps every result so a
 * subscriber can resume from any `Last-Event-ID`, and fans new results out to live subscribers.
 * Where the results are kept is a port (`ResultStorage`): memory on Node/Deno, SQLite in the
 * Durable Object. Subscribers always live in memory: they are open HTTP responses.
 *
 * The log is typed by its event types: a session's results by default, and an eval set run's
 * progress (src/runner/hosted-run.ts) in the same kind of log, so both stream through one streamer.
 */
import type { ResultEventType } from '../engine/types.ts'
import { resultDataJson } from './result-json.ts'

/** One logged event: its seq (from 1), type, key and JSON data. A session's is a `ResultEvent`. */
export type LoggedEvent<T extends string = ResultEventType> = { seq: number; type: T; key: string; data: Record<string, unknown> }

/** Where a log keeps its results. `insert` is called with strictly increasing seq, starting at 1. */
export interface ResultStorage<T extends string = ResultEventType> {
  lastSeq(): number
  insert(event: LoggedEvent<T>): void
  /** Results with seq > afterSeq, in seq order. */
  readAfter(afterSeq: number): LoggedEvent<T>[]
  /** Up to `limit` results after `afterSeq` as key and seq, without their data (what a replay needs to recognise them). */
  keys?(afterSeq: number, limit: number): Array<{ key: string; seq: number }>
  /** Resolves once every result inserted so far can be read back without waiting for a writer. */
  settle?(): Promise<void>
  /** One result's data as the JSON text it was stored as (no parse and stringify of a large case result). */
  dataText?(seq: number): string | undefined
}

export type ResultSubscriber<T extends string = ResultEventType> = (event: LoggedEvent<T>) => void

/** Why a log stopped for good (its session was evicted or deleted): sent as an `error` frame. */
export type LogClosing = { message: string }
export type CloseSubscriber = (closing: LogClosing) => void

export interface ResultLog<T extends string = ResultEventType> {
  /** Gives the body the next seq, stores it and tells every subscriber. */
  append(body: Omit<LoggedEvent<T>, 'seq'>): LoggedEvent<T>
  readAfter(afterSeq: number): LoggedEvent<T>[]
  /** Up to `limit` logged results after `afterSeq`, as key and seq: read a page at a time. */
  keys(afterSeq: number, limit: number): Array<{ key: string; seq: number }>
  lastSeq(): number
  /** Resolves once every result appended so far can be read back without waiting for a writer. */
  settle(): Promise<void>
  /** The logged result with this seq (undefined when there is none). */
  eventAt(seq: number): LoggedEvent<T> | undefined
  /** One logged result's data as JSON text (undefined when there is no such seq). */
  dataText(seq: number): string | undefined
  /**
   * Returns the function that unsubscribes. `onClose` hears when the log is closed; subscribing to
   * a closed log hears it at once (on a microtask), so no subscriber waits for a session that left.
   */
  subscribe(subscriber: ResultSubscriber<T>, onClose?: CloseSubscriber): () => void
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
export function createResultLog<T extends string = ResultEventType>(storage: ResultStorage<T>): ResultLog<T> {
  // Made with the first subscriber: most sessions' logs have none for most of their life.
  let subscribers: Set<ResultSubscriber<T>> | undefined
  let closeSubscribers: Map<ResultSubscriber<T>, CloseSubscriber> | undefined
  let closed: LogClosing | undefined
  let last = storage.lastSeq()
  const eventAt = (seq: number) => (seq < 1 || seq > last ? undefined : storage.readAfter(seq - 1).find((e) => e.seq === seq))
  return {
    append(body) {
      // A closed log's storage may already be deleted: the result goes nowhere.
      if (closed) return { seq: last, ...body }
      last += 1
      const event: LoggedEvent<T> = { seq: last, type: body.type, key: body.key, data: body.data }
      storage.insert(event)
      // Copy first: a subscriber may unsubscribe itself (stream closing on case.result).
      if (subscribers?.size) {
        for (const subscriber of [...subscribers]) {
          try {
            subscriber(event)
          } catch {
            // One broken subscriber must not stop the others or the engine that emitted.
            subscribers.delete(subscriber)
          }
        }
      }
      return event
    },
    // A reader that has everything (a new stream, a caught-up resume) costs the storage nothing.
    readAfter: (afterSeq) => (afterSeq >= last ? [] : storage.readAfter(afterSeq)),
    // A new session's replay asks for every key and has none: no storage read (on SQLite a read
    // first waits for the writer thread to commit what is queued, which blocked creates under load).
    keys: (afterSeq, limit) =>
      afterSeq >= last ? [] : storage.keys?.(afterSeq, limit) ??
        storage.readAfter(afterSeq).slice(0, limit).map(({ key, seq }) => ({ key, seq })),
    lastSeq: () => last,
    settle: () => storage.settle?.() ?? Promise.resolve(),
    eventAt,
    dataText(seq) {
      if (seq < 1 || seq > last) return undefined
      if (storage.dataText) return storage.dataText(seq)
      const data = eventAt(seq)?.data
      return data && resultDataJson(data)
    },
    subscribe(subscriber, onClose) {
      if (closed) {
        const closing = closed
        if (onClose) queueMicrotask(() => onClose(closing))
        return () => false
      }
      subscribers ??= new Set()
      subscribers.add(subscriber)
      if (onClose) (closeSubscribers ??= new Map()).set(subscriber, onClose)
      return () => {
        closeSubscribers?.delete(subscriber)
        return subscribers?.delete(subscriber) ?? false
      }
    },
    close(closing) {
      if (closed) return
      closed = closing
      const toTell = [...(closeSubscribers?.values() ?? [])]
      subscribers?.clear()
      closeSubscribers?.clear()
      for (const onClose of toTell) {
        try {
          onClose(closing)
        } catch {
          // A subscriber that cannot be told is dropped all the same.
        }
      }
    },
    subscriberCount: () => subscribers?.size ?? 0,
  }
}

/**
 * @example
 * const storage = memoryResultStorage()
 */
export function memoryResultStorage<T extends string = ResultEventType>(): ResultStorage<T> {
  // The objects themselves: as JSON text they took more heap (their details are shared with the
  // engine's scores, and ADK's case result spells every absent field as null).
  const events: LoggedEvent<T>[] = []
  return {
    lastSeq: () => events.length,
    insert: (event) => void events.push(event),
    // seq n sits at index n - 1, so resuming is a slice, not a scan.
    readAfter: (afterSeq) => events.slice(Math.max(0, afterSeq)),
    keys: (afterSeq, limit) => events.slice(Math.max(0, afterSeq), Math.max(0, afterSeq) + limit).map(({ key, seq }) => ({ key, seq })),
  }
}

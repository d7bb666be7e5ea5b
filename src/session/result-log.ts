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

const utf8 = new TextEncoder()

/** One logged event: its seq (from 1), type, key and JSON data. A session's is a `ResultEvent`. */
export type LoggedEvent<T extends string = ResultEventType> = { seq: number; type: T; key: string; data: Record<string, unknown> }

/** Where a log keeps its results. `insert` is called with strictly increasing seq, starting at 1. */
export interface ResultStorage<T extends string = ResultEventType> {
  lastSeq(): number
  insert(event: LoggedEvent<T>): void
  /** Results with seq > afterSeq, in seq order. */
  readAfter(afterSeq: number): LoggedEvent<T>[]
  /** Results of this type with seq from `first` to `last`, in seq order (a narrower read than `readAfter`). */
  readBetween?(first: number, last: number, type: T): LoggedEvent<T>[]
  /** Up to `limit` results after `afterSeq` as key and seq, without their data (what a replay needs to recognise them). */
  keys?(afterSeq: number, limit: number): Array<{ key: string; seq: number }>
  /** Resolves once every result inserted so far can be read back without waiting for a writer. */
  settle?(): Promise<void>
  /** One result's data as the JSON text it was stored as (no parse and stringify of a large case result). */
  dataText?(seq: number): string | undefined
  /** `dataText` as UTF-8 bytes, read as stored (no string made). */
  dataBytes?(seq: number): Uint8Array<ArrayBuffer> | undefined
  /** `readBetween`'s results as their stored data texts, unparsed, in seq order. */
  readTextsBetween?(first: number, last: number, type: T): Array<{ seq: number; text: string }>
  /** The results are kept outside the heap (a database): holding them costs the process no memory. */
  readonly outsideHeap?: boolean
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
  /** The logged results of this type among these seqs, by seq, in one read (seqs it does not have are left out). */
  eventsAt(seqs: readonly number[], type: T): Map<number, LoggedEvent<T>>
  /** One logged result's data as JSON text (undefined when there is no such seq). */
  dataText(seq: number): string | undefined
  /** `dataText` as UTF-8: a database's stored bytes as they are, else the text encoded. */
  dataBytes(seq: number): Uint8Array<ArrayBuffer> | undefined
  /** `eventsAt`'s results as their data's JSON text: as stored (a database's rows), else made from the data. */
  dataTextsAt(seqs: readonly number[], type: T): Map<number, string>
  /**
   * Returns the function that unsubscribes. `onClose` hears when the log is closed; subscribing to
   * a closed log hears it at once (on a microtask), so no subscriber waits for a session that left.
   */
  subscribe(subscriber: ResultSubscriber<T>, onClose?: CloseSubscriber): () => void
  /** Tells every subscriber the log is done and drops them; appends after this are ignored. */
  close(closing: LogClosing): void
  /** Live subscribers (open result streams, proxied runs): shows that a client that left is gone. */
  subscriberCount(): number
  /** Whether the results are kept outside the heap (its storage's `outsideHeap`). */
  readonly outsideHeap: boolean
}

/**
 * @example
 * const log = createResultLog(memoryResultStorage())
 * log.append({ type: 'invocation.started', key: 'started/0', data: {} }).seq // 1
 */
export function createResultLog<T extends string = ResultEventType>(storage: ResultStorage<T>): ResultLog<T> {
  return new StoredResultLog(storage)
}

/**
 * A class, not an object of closures: every session has a log, and its methods are shared by all
 * of them (fourteen closures were about 0.8 KiB of an idle session's 4).
 */
class StoredResultLog<T extends string> implements ResultLog<T> {
  #storage: ResultStorage<T>
  // Made with the first subscriber: most sessions' logs have none for most of their life.
  #subscribers: Set<ResultSubscriber<T>> | undefined
  /** `#subscribers` as an array, made on the first append after the set changed. */
  #fanout: Array<ResultSubscriber<T>> | undefined
  #closeSubscribers: Map<ResultSubscriber<T>, CloseSubscriber> | undefined
  #closed: LogClosing | undefined
  #last: number

  constructor(storage: ResultStorage<T>) {
    this.#storage = storage
    this.#last = storage.lastSeq()
  }

  append(body: Omit<LoggedEvent<T>, 'seq'>): LoggedEvent<T> {
    // A closed log's storage may already be deleted: the result goes nowhere.
    if (this.#closed) return { seq: this.#last, ...body }
    this.#last += 1
    const event: LoggedEvent<T> = { seq: this.#last, type: body.type, key: body.key, data: body.data }
    this.#storage.insert(event)
    const subscribers = this.#subscribers
    if (subscribers?.size) {
      // A copy, made when the set changes rather than per result: a subscriber may unsubscribe
      // itself (stream closing on case.result), and this result still goes to the ones it had.
      const fanout = (this.#fanout ??= [...subscribers])
      for (const subscriber of fanout) {
        try {
          subscriber(event)
        } catch {
          // One broken subscriber must not stop the others or the engine that emitted.
          subscribers.delete(subscriber)
          this.#fanout = undefined
        }
      }
    }
    return event
  }

  // A reader that has everything (a new stream, a caught-up resume) costs the storage nothing.
  readAfter(afterSeq: number): LoggedEvent<T>[] {
    return afterSeq >= this.#last ? [] : this.#storage.readAfter(afterSeq)
  }

  // A new session's replay asks for every key and has none: no storage read (on SQLite a read
  // first waits for the writer thread to commit what is queued, which blocked creates under load).
  keys(afterSeq: number, limit: number): Array<{ key: string; seq: number }> {
    if (afterSeq >= this.#last) return []
    return this.#storage.keys?.(afterSeq, limit) ??
      this.#storage.readAfter(afterSeq).slice(0, limit).map(({ key, seq }) => ({ key, seq }))
  }

  lastSeq(): number {
    return this.#last
  }

  get outsideHeap(): boolean {
    return this.#storage.outsideHeap === true
  }

  settle(): Promise<void> {
    return this.#storage.settle?.() ?? Promise.resolve()
  }

  eventAt(seq: number): LoggedEvent<T> | undefined {
    return seq < 1 || seq > this.#last ? undefined : this.#storage.readAfter(seq - 1).find((e) => e.seq === seq)
  }

  eventsAt(seqs: readonly number[], type: T): Map<number, LoggedEvent<T>> {
    const found = new Map<number, LoggedEvent<T>>()
    const [first, last] = this.#span(seqs)
    if (first > last) return found
    const wanted = new Set(seqs)
    const events = this.#storage.readBetween?.(first, last, type) ??
      this.#storage.readAfter(first - 1).filter((e) => e.seq <= last && e.type === type)
    for (const event of events) if (wanted.has(event.seq)) found.set(event.seq, event)
    return found
  }

  dataTextsAt(seqs: readonly number[], type: T): Map<number, string> {
    const readTexts = this.#storage.readTextsBetween
    if (!readTexts) {
      const texts = new Map<number, string>()
      for (const [seq, event] of this.eventsAt(seqs, type)) texts.set(seq, resultDataJson(event.data))
      return texts
    }
    const found = new Map<number, string>()
    const [first, last] = this.#span(seqs)
    if (first > last) return found
    const wanted = new Set(seqs)
    for (const { seq, text } of readTexts.call(this.#storage, first, last, type)) if (wanted.has(seq)) found.set(seq, text)
    return found
  }

  /** The seqs' first and last within the log (first > last: none of them is). */
  #span(seqs: readonly number[]): [number, number] {
    let first = Infinity
    let last = 0
    for (const seq of seqs) {
      if (seq < first) first = seq
      if (seq > last) last = seq
    }
    return [Math.max(1, first), Math.min(this.#last, last)]
  }

  dataText(seq: number): string | undefined {
    if (seq < 1 || seq > this.#last) return undefined
    if (this.#storage.dataText) return this.#storage.dataText(seq)
    const data = this.eventAt(seq)?.data
    return data && resultDataJson(data)
  }

  dataBytes(seq: number): Uint8Array<ArrayBuffer> | undefined {
    if (seq < 1 || seq > this.#last) return undefined
    if (this.#storage.dataBytes) return this.#storage.dataBytes(seq)
    const text = this.dataText(seq)
    return text === undefined ? undefined : utf8.encode(text)
  }

  subscribe(subscriber: ResultSubscriber<T>, onClose?: CloseSubscriber): () => void {
    const closed = this.#closed
    if (closed) {
      if (onClose) queueMicrotask(() => onClose(closed))
      return () => false
    }
    const subscribers = (this.#subscribers ??= new Set())
    subscribers.add(subscriber)
    this.#fanout = undefined
    if (onClose) (this.#closeSubscribers ??= new Map()).set(subscriber, onClose)
    return () => {
      this.#closeSubscribers?.delete(subscriber)
      this.#fanout = undefined
      return subscribers.delete(subscriber)
    }
  }

  close(closing: LogClosing): void {
    if (this.#closed) return
    this.#closed = closing
    const toTell = [...(this.#closeSubscribers?.values() ?? [])]
    this.#subscribers?.clear()
    this.#fanout = undefined
    this.#closeSubscribers?.clear()
    for (const onClose of toTell) {
      try {
        onClose(closing)
      } catch {
        // A subscriber that cannot be told is dropped all the same.
      }
    }
  }

  subscriberCount(): number {
    return this.#subscribers?.size ?? 0
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
    readBetween: (first, last, type) => events.slice(Math.max(0, first - 1), Math.max(0, last)).filter((e) => e.type === type),
    keys: (afterSeq, limit) => events.slice(Math.max(0, afterSeq), Math.max(0, afterSeq) + limit).map(({ key, seq }) => ({ key, seq })),
  }
}

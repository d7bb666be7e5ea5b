/**
 * The sessions database written behind (Node, with a database file): journal entries, results,
 * session rows and judge answers are queued on the main thread and written by a worker thread
 * (write-behind-worker.ts) that owns the only writing connection, so statements and commits never
 * hold up the event loop that accepts connections and serves requests.
 *
 * Commits are grouped: the writer commits what it has every WRITE_BEHIND_FLUSH_MS (or at once
 * when WRITE_BEHIND_MAX_STATEMENTS are waiting), one commit for every request of that window.
 * A request is answered only once its writes are committed (`durable()`, awaited by the HTTP app
 * for every request that writes), so what was acknowledged survives a kill -9; what a kill -9 can
 * cut is a request not yet answered, and always a suffix of the writes: the writer runs them in the
 * order they were queued and commits a prefix, so a restarted session replays a journal whose
 * results are all there (results are logged after the journal entry that caused them), never a
 * gap, never a duplicate.
 *
 * Reads see every write made before them, as with one connection: a read (on the main thread's own
 * connection; WAL readers never wait for the writer) first has the writer commit what was sent
 * (Atomics.wait, at most WRITE_BEHIND_SETTLE_MS). A write that returns rows (RETURNING) runs on
 * the writer synchronously the same way. On the request path reads are rare: session records are
 * kept in memory (src/session/sqlite/records.ts), so it is a session's creation and a stream's resume that wait.
 *
 * With `index`, the same thread writes the results index into its own file (write-behind-index.ts):
 * `indexResults` turns results into rows here and they leave with the turn's one message.
 */
import { DatabaseSync } from 'node:sqlite'
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads'
import { indexRowOf, type IndexRowValue, pushIndexRow } from '../../monitor/results-index-rows.ts'
import type { FedResult } from '../../session/result-feed.ts'
import { resultDataJson } from '../../session/result-json.ts'
import type { Sql, SqlValue } from '../../session/sql.ts'
import type { IndexTarget } from './write-behind-index.ts'
import type { WriteBehindMessage, WriteBehindReply, WriteBehindWorkerData } from './write-behind-worker.ts'
import { type EncodedRows, pushRow, type Statement, statementNumbers } from './write-behind-rows.ts'
import { siblingModule } from './sibling-module.ts'

/** The writer commits what it has at least this often (ms): the durability window. */
export const WRITE_BEHIND_FLUSH_MS = 5
/** ...or as soon as this many statements wait. */
export const WRITE_BEHIND_MAX_STATEMENTS = 5_000
/** A read waits at most this long for the writer (ms); past it, it reads what is committed and says so. */
export const WRITE_BEHIND_SETTLE_MS = 5_000
/** The writer thread's name, as tools that list a process's threads show it (Linux keeps 15 characters). */
export const WRITER_THREAD_NAME = 'es-sessions-db'

/** `Atomics.waitAsync` (ES2024; Node has it, the project's TypeScript lib predates it). */
const waitAsync = (Atomics as unknown as {
  waitAsync(view: Int32Array, index: number, value: number, timeoutMs: number): { async: boolean; value: unknown }
}).waitAsync

export type WriteBehindSql = Sql & {
  /** Waits until every write queued so far is committed. */
  settle(): void
  /** Waits until every result queued for the index so far is committed there (`indexResults`). */
  settleIndex(): void
  /**
   * Resolves once every write queued so far is committed, without blocking the thread: false when
   * the writer is gone or took longer than WRITE_BEHIND_SETTLE_MS.
   */
  durable(): Promise<boolean>
  /** Commits what is queued and stops the writer (the main thread's connection closes too). */
  close(): Promise<void>
  /**
   * Queues results for the results index the writer was given (`index`; without one, nothing is
   * written): they are written and committed right after the commit of the turn's statements, and
   * an index read that settles first (`settleIndex`) sees them.
   */
  indexResults(batch: readonly FedResult[]): void
}

/**
 * @example
 * const sql = writeBehindSql('.evalstream/evalstream.db')
 * sqliteSessionStore(sql)
 */
export function writeBehindSql(
  path: string,
  options: { flushMs?: number; maxStatements?: number; index?: IndexTarget } = {},
): WriteBehindSql {
  // The main thread's connection (reads only) creates the file and sets WAL before the writer opens it.
  const reader = new DatabaseSync(path)
  reader.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000')
  const counters = new SharedArrayBuffer(16)
  const view = new Int32Array(counters)
  const { port1: replies, port2: replyPort } = new MessageChannel()
  const workerData: WriteBehindWorkerData = {
    path,
    flushMs: options.flushMs ?? WRITE_BEHIND_FLUSH_MS,
    maxStatements: options.maxStatements ?? WRITE_BEHIND_MAX_STATEMENTS,
    counters,
    replies: replyPort,
    ...(options.index ? { index: options.index } : {}),
  }
  const worker = new Worker(siblingModule('./write-behind-worker', import.meta.url), {
    workerData,
    transferList: [replyPort],
    name: WRITER_THREAD_NAME,
  })
  worker.unref()
  let alive = true
  worker.on('error', (e) => {
    alive = false
    console.error(`evalstream: the SQLite writer stopped: ${e instanceof Error ? e.message : String(e)}`)
  })
  worker.on('exit', () => {
    alive = false
  })

  const statements = statementNumbers()
  let queued: EncodedRows = []
  let queuedIndex: IndexRowValue[] = []
  let scheduled = false
  let sent = 0
  let calls = 0
  const post = () => {
    scheduled = false
    if (queued.length === 0 && queuedIndex.length === 0) return
    sent += 1
    const message: WriteBehindMessage = queuedIndex.length > 0 ? { batch: queued, index: queuedIndex, n: sent } : { batch: queued, n: sent }
    worker.postMessage(message)
    queued = []
    queuedIndex = []
  }
  // One message per turn of the event loop (setImmediate runs after the turn's I/O callbacks),
  // however many requests the turn served: a message costs ~10 µs before its bytes.
  const schedule = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(post)
  }
  /** Waits (blocking) until counter `at` reaches `target`; false past the deadline or without a writer. */
  const waitFor = (at: 1 | 2 | 3, target: number): boolean => {
    const deadline = performance.now() + WRITE_BEHIND_SETTLE_MS
    for (let seen = Atomics.load(view, at); seen < target; seen = Atomics.load(view, at)) {
      const left = deadline - performance.now()
      if (!alive || left <= 0) return false
      Atomics.wait(view, at, seen, Math.min(left, 50))
    }
    return true
  }
  /** Has the writer commit now what was sent, and waits until counter `at` says it did. */
  const settleAt = (at: 1 | 3) => {
    post()
    if (Atomics.load(view, at) >= sent) return
    worker.postMessage({ commit: true } satisfies WriteBehindMessage)
    if (!waitFor(at, sent)) console.error('evalstream: the SQLite writer did not commit in time; reading what is committed')
  }
  const settle = () => settleAt(1)
  const call = (statement: Statement, params: SqlValue[]): unknown[] => {
    post()
    calls += 1
    const row: EncodedRows = []
    pushRow(row, statement, params)
    worker.postMessage({ call: row, id: calls } satisfies WriteBehindMessage)
    if (!waitFor(2, calls)) throw new Error('the SQLite writer did not answer in time')
    // Replies come in order, one per call: the newest is this call's.
    let reply: WriteBehindReply | undefined
    for (let m = receiveMessageOnPort(replies); m; m = receiveMessageOnPort(replies)) reply = m.message as WriteBehindReply
    if (!reply || reply.id !== calls) throw new Error('the SQLite writer answered out of order')
    if (reply.error !== undefined) throw new Error(reply.error)
    return reply.rows ?? []
  }

  // An Atomics.waitAsync keeps no event loop alive, and the writer is unref'd: a process with
  // nothing else to do (a script, a server closing its listener) would exit with the wait pending.
  // One ref'd timer stands for every wait in progress.
  let waiting = 0
  let keepAlive: ReturnType<typeof setInterval> | undefined
  const durable = async (): Promise<boolean> => {
    // Queued statements leave with this turn's one message (the setImmediate `query` scheduled):
    // waiting for that message's commit costs no message of its own. A message per request was 7%
    // of the main thread under load, in structured clones.
    const target = queued.length > 0 ? sent + 1 : sent
    if (Atomics.load(view, 1) >= target) return true
    if (waiting++ === 0) keepAlive = setInterval(() => {}, WRITE_BEHIND_SETTLE_MS)
    try {
      const deadline = performance.now() + WRITE_BEHIND_SETTLE_MS
      for (let seen = Atomics.load(view, 1); seen < target; seen = Atomics.load(view, 1)) {
        const left = deadline - performance.now()
        if (!alive || left <= 0) return false
        const wait = waitAsync(view, 1, seen, left)
        if (wait.async) await wait.value
      }
      return true
    } finally {
      if (--waiting === 0) clearInterval(keepAlive)
    }
  }

  const prepared = new Map<string, ReturnType<DatabaseSync['prepare']>>()
  const readCommitted = (statement: string, params: SqlValue[]) => {
    let p = prepared.get(statement)
    if (!p) prepared.set(statement, p = reader.prepare(statement))
    return p.all(...params)
  }

  const read = (statement: string, params: SqlValue[]) => {
    settle()
    return readCommitted(statement, params)
  }

  return {
    readCommitted: (statement, ...params) => readCommitted(statement, params) as ReturnType<Sql['query']>,
    query(text, ...params) {
      const statement = statements.of(text)
      if (statement.kind === 'read') return read(text, params) as ReturnType<Sql['query']>
      if (statement.kind === 'call') return call(statement, params) as ReturnType<Sql['query']>
      // The writer's one transaction already groups what a caller's BEGIN and COMMIT would.
      if (statement.kind === 'control') return []
      schedule()
      pushRow(queued, statement, params)
      return []
    },
    settle,
    settleIndex: () => settleAt(3),
    durable,
    indexResults(batch) {
      if (!options.index || !alive || batch.length === 0) return
      schedule()
      // The data's text is the one its session's row was written with, not stringified again.
      for (const r of batch) pushIndexRow(queuedIndex, indexRowOf(r, resultDataJson))
    },
    async close() {
      // The index's rows are written after the sessions' commit is published: wait for them too,
      // or terminating the writer would cut them off.
      settleAt(3)
      await worker.terminate()
      reader.close()
    },
  }
}

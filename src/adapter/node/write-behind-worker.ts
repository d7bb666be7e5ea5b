/**
 * The sessions database's writer thread (write-behind-sql.ts starts it): owns the only writing
 * connection, runs the statements the main thread queued in the order they were queued, inside one
 * transaction committed every `flushMs` or every `maxStatements` statements, and at once when the
 * main thread asks (a read that must see every write before it, or a write that returns rows).
 * After each commit it publishes the number of the last batch in, so the main thread can wait for
 * exactly the batches it sent.
 *
 * Statements arrive by number: the main thread sends a statement's text once, the first time it is
 * used, and the writer keeps its prepared statement by that number (write-behind-rows.ts).
 *
 * Given an index target, the same thread writes the results index into its own file: a batch may
 * carry that turn's index rows, and each commit commits them too (write-behind-index.ts).
 */
import { DatabaseSync } from 'node:sqlite'
import { type MessagePort, parentPort, workerData } from 'node:worker_threads'
import { INDEX_ROW_VALUES, type IndexRowValue } from '../../monitor/results-index-rows.ts'
import { indexOnWriter, type IndexTarget } from './write-behind-index.ts'
import { type EncodedRows, readRows } from './write-behind-rows.ts'
import { WRITER_PRAGMAS } from './writer-pragmas.ts'

export type WriteBehindWorkerData = {
  path: string
  flushMs: number
  maxStatements: number
  counters: SharedArrayBuffer
  replies: MessagePort
  /** The results index this thread writes too (the Node server's), if any. */
  index?: IndexTarget
}
/**
 * `batch`: statements queued in one turn (write-behind-rows.ts), batches numbered from 1, with the
 * turn's results index rows in `index` (pushIndexRow) when there were some.
 * `commit`: commit now. `call`: one statement whose rows (or error) the main thread waits for,
 * committed with everything before it.
 */
export type WriteBehindMessage = { batch: EncodedRows; index?: IndexRowValue[]; n: number } | { commit: true } | {
  call: EncodedRows
  id: number
}
export type WriteBehindReply = { id: number; rows?: unknown[]; error?: string }

const data = workerData as WriteBehindWorkerData
const db = new DatabaseSync(data.path)
db.exec(WRITER_PRAGMAS)
const index = data.index ? indexOnWriter(data.index) : undefined
/** [0]: batches received; [1]: batches committed; [2]: calls answered; [3]: batches whose index rows are committed. */
const counters = new Int32Array(data.counters)
/** Each statement's text and, once it prepared, its prepared statement, by number. */
const texts: string[] = []
const prepared: ReturnType<DatabaseSync['prepare']>[] = []
let open = false
let inTransaction = 0
let received = 0
let timer: ReturnType<typeof setTimeout> | undefined
/** Index rows received since the last commit: written after the sessions' commit, so no request waits for them. */
let pendingIndex: IndexRowValue[][] = []

/** A statement's prepared form; a statement that fails to prepare (its table not there yet) is tried again next time. */
const statement = (n: number) => {
  let p = prepared[n]
  if (p === undefined) prepared[n] = p = db.prepare(texts[n]!)
  return p
}

const begin = () => {
  if (!open) {
    db.exec('BEGIN')
    open = true
  }
  inTransaction += 1
}

/** Commits the sessions' rows and wakes whoever waits for them. */
const commitSessions = () => {
  if (timer !== undefined) clearTimeout(timer)
  timer = undefined
  if (open) {
    try {
      db.exec('COMMIT')
    } catch (e) {
      // A COMMIT that fails (disk full) leaves SQLite to roll back; say so, the host goes on.
      console.error(`evalstream: SQLite commit failed: ${e instanceof Error ? e.message : String(e)}`)
      if (db.isTransaction) db.exec('ROLLBACK')
    }
    open = false
  }
  inTransaction = 0
  Atomics.store(counters, 1, received)
  Atomics.notify(counters, 1)
}

/** The index's rows of the batches just committed, which only a reader of the index waits for ([3]). */
const commitIndex = () => {
  if (index) {
    for (const rows of pendingIndex) index.record(rows)
    pendingIndex = []
    index.commit()
  }
  Atomics.store(counters, 3, received)
  Atomics.notify(counters, 3)
}

const commit = () => {
  commitSessions()
  commitIndex()
}

parentPort!.on('message', (message: WriteBehindMessage) => {
  if ('commit' in message) return commit()
  if ('call' in message) {
    let reply: WriteBehindReply = { id: message.id }
    readRows(message.call, texts, (n, params) => {
      try {
        begin()
        reply = { id: message.id, rows: statement(n).all(...params) }
      } catch (e) {
        reply = { id: message.id, error: e instanceof Error ? e.message : String(e) }
      }
    })
    commitSessions()
    data.replies.postMessage(reply)
    Atomics.store(counters, 2, message.id)
    Atomics.notify(counters, 2)
    // The main thread is blocked on the reply: the index's rows come after it.
    return commitIndex()
  }
  readRows(message.batch, texts, (n, params) => {
    try {
      begin()
      statement(n).run(...params)
    } catch (e) {
      // One failed write must not cost the others (the caller was answered when it queued it).
      console.error(`evalstream: SQLite write failed (${texts[n]!.slice(0, 60)}): ${e instanceof Error ? e.message : String(e)}`)
    }
  })
  if (message.index && index) {
    pendingIndex.push(message.index)
    inTransaction += message.index.length / INDEX_ROW_VALUES
  }
  received = message.n
  Atomics.store(counters, 0, received)
  if (inTransaction >= data.maxStatements) commit()
  else timer ??= setTimeout(commit, data.flushMs)
})

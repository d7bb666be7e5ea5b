/**
 * What the storing replay baseline (`bench/load.ts --server stored`) keeps: every session's spec,
 * every event line it was sent and every frame it sent out, in one SQLite file (WAL, synchronous
 * NORMAL: a kill -9 loses nothing committed), committed before the upload is answered and the
 * frames go out, as the service does. A relay that says "nothing you were told is lost" pays this
 * much at least; the service pays it too (its journal and result log), besides scoring.
 *
 * Writes made in one turn of the event loop share one transaction, committed at the end of the
 * turn (`setImmediate`): the cheapest commit schedule that still answers within the turn.
 */
import { DatabaseSync } from 'node:sqlite'

const SCHEMA = `
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, spec TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (session_id TEXT NOT NULL, n INTEGER NOT NULL, line TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS events_by_session ON events (session_id, n);
CREATE TABLE IF NOT EXISTS results (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS results_by_session ON results (session_id, seq);
`

export type ReplayStore = {
  session(id: string, spec: string): void
  event(id: string, n: number, line: string): void
  result(id: string, seq: number, type: string, data: string): void
  /** Resolves once everything written so far is committed. */
  committed(): Promise<void>
}

/** @example const store = replayStore('/tmp/x/replay.db'); store.event('s1', 1, line); await store.committed() */
export function replayStore(path: string): ReplayStore {
  const db = new DatabaseSync(path)
  db.exec(SCHEMA)
  const insertSession = db.prepare('INSERT INTO sessions (id, spec) VALUES (?, ?)')
  const insertEvent = db.prepare('INSERT INTO events (session_id, n, line) VALUES (?, ?, ?)')
  const insertResult = db.prepare('INSERT INTO results (session_id, seq, type, data) VALUES (?, ?, ?, ?)')
  let turn: Promise<void> | undefined
  /** Opens this turn's transaction on its first write; it commits once the turn is over. */
  const begin = () => {
    if (turn) return
    db.exec('BEGIN')
    turn = new Promise((resolve) =>
      setImmediate(() => {
        db.exec('COMMIT')
        turn = undefined
        resolve()
      })
    )
  }
  return {
    session(id, spec) {
      begin()
      insertSession.run(id, spec)
    },
    event(id, n, line) {
      begin()
      insertEvent.run(id, n, line)
    },
    result(id, seq, type, data) {
      begin()
      insertResult.run(id, seq, type, data)
    },
    committed: () => turn ?? Promise.resolve(),
  }
}

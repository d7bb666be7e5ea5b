/**
 * The results index's writer thread, without the server: what `recordAll` costs per result on a
 * database file, fed load-shaped batches (each session's invocations as bench/load.ts's sessions
 * make them: 8 results, 6 of them kept rows; a case result at each session's end), each batch
 * parsed from the JSON the main thread posts and committed in one transaction, as
 * src/adapter/node/index-worker.ts does.
 *
 *   npx node bench/results-index.bench.ts [sessions=200] [sessions per batch=8] [rounds=3]
 *
 * Three sides, interleaved round by round (order reversed every other round), each on a fresh file:
 * `before` is the index over a Sql without `run` (every insert `... RETURNING id`, as a Durable
 * Object's storage still is) with the thread's former settings (a checkpoint every 1,000 WAL
 * pages); `run` the index over node:sqlite's Sql, same settings; `run + checkpoint` the thread as
 * it is now (src/adapter/node/writer-pragmas.ts). All must end with the same index (checked). CPU
 * is this thread's (user + system).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { evalCaseResultValue } from '../src/adk/results-json.ts'
import { WRITER_PRAGMAS } from '../src/adapter/node/writer-pragmas.ts'
import { indexRowJson } from '../src/adapter/node/index-writer.ts'
import { recordBatch, sqlTransaction } from '../src/config/results-index.ts'
import type { EngineEmission } from '../src/engine/types.ts'
import { createSessionEngine } from '../src/engine/session-engine.ts'
import { decodeAll } from '../src/ingest/index.ts'
import { sqliteResultsIndex } from '../src/monitor/results-index.ts'
import type { FedResult } from '../src/session/result-feed.ts'
import { type Sql, sqlFromDatabaseSync } from '../src/session/sql.ts'
import { CONFIG, invocationBody, loadCase } from './load-case.ts'

const SESSIONS = Number(process.argv[2] ?? 200)
const PER_BATCH = Number(process.argv[3] ?? 8)
const ROUNDS = Number(process.argv[4] ?? 3)
const INVOCATIONS = 50

/** One session's results as its engine emits them (the load bench's case and events). */
async function sessionResults(): Promise<FedResult['event'][]> {
  const emitted: EngineEmission[] = []
  const created = createSessionEngine({
    spec: { session_id: 's', eval_config: CONFIG, eval_case: loadCase(INVOCATIONS) } as never,
    emit: (b) => void emitted.push(b),
  })
  if (!created.ok) throw new Error(created.problem.detail)
  for (let k = 0; k < INVOCATIONS; k++) for (const e of decodeAll('ndjson', invocationBody(k)).events) created.engine.push(e as never)
  await created.engine.end()
  // The case result in ADK's file shape, as the session logs it (src/session/session.ts).
  return emitted.map((e, i) =>
    ({ ...e, data: e.type === 'case.result' ? evalCaseResultValue(e.data) : e.data, seq: i + 1 }) as FedResult['event']
  )
}

/** The batches the thread is posted: invocation k of PER_BATCH sessions at a time, case results last. */
function batches(events: FedResult['event'][]): string[] {
  const byInvocation = new Map<number, FedResult['event'][]>()
  const last: FedResult['event'][] = []
  for (const e of events) {
    const k = (e.data as { invocation_index?: number }).invocation_index
    if (typeof k !== 'number') last.push(e)
    else byInvocation.set(k, [...(byInvocation.get(k) ?? []), e])
  }
  let atMs = Date.UTC(2026, 10, 27)
  const out: string[] = []
  for (const group of [...byInvocation.values(), last]) {
    for (let s0 = 0; s0 < SESSIONS; s0 += PER_BATCH) {
      const rows: string[] = []
      for (let s = s0; s < Math.min(SESSIONS, s0 + PER_BATCH); s++) {
        for (const event of group) rows.push(indexRowJson({ sessionId: `load-${s}`, appName: 'weather', atMs: atMs++, event }))
      }
      out.push(`[${rows.join(',')}]`)
    }
  }
  return out
}

/** The thread's settings before the checkpoint interval was raised. */
const BEFORE_PRAGMAS = 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000'
const SIDES: Record<string, { sql: (sql: Sql) => Sql; pragmas: string }> = {
  before: { sql: (sql) => ({ query: sql.query }), pragmas: BEFORE_PRAGMAS },
  run: { sql: (sql) => sql, pragmas: BEFORE_PRAGMAS },
  'run + checkpoint': { sql: (sql) => sql, pragmas: WRITER_PRAGMAS },
}

function round(side: string, posted: string[], dir: string): { us: number; results: number; kept: number; dump: string } {
  const path = join(dir, `${side.replace(/\W+/g, '-')}.db`)
  const db = new DatabaseSync(path)
  db.exec(SIDES[side]!.pragmas)
  const sql = SIDES[side]!.sql(sqlFromDatabaseSync(db))
  const index = sqliteResultsIndex(sql, { transaction: sqlTransaction(sql) })
  let results = 0
  const t0 = process.threadCpuUsage()
  for (const text of posted) {
    const batch = JSON.parse(text) as FedResult[]
    results += batch.length
    recordBatch(index, batch)
  }
  const cpu = process.threadCpuUsage(t0)
  const dump = JSON.stringify([
    sql.query('SELECT * FROM es_index_sessions ORDER BY session_id'),
    sql.query('SELECT COUNT(*) AS n, SUM(id * seq) AS k, SUM(current) AS c, SUM(LENGTH(data)) AS d FROM es_index_results'),
  ])
  const kept = Number(sql.query('SELECT COUNT(*) AS n FROM es_index_results')[0]!.n)
  db.close()
  for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true })
  return { us: (cpu.user + cpu.system) / results, results, kept, dump }
}

const posted = batches(await sessionResults())
const dir = mkdtempSync(join(tmpdir(), 'evalstream-index-bench-'))
try {
  console.log(
    `results index: ${SESSIONS} sessions x ${INVOCATIONS} invocations, ${posted.length} batches of ${PER_BATCH} sessions' results`,
  )
  for (let r = 1; r <= ROUNDS; r++) {
    const sides = Object.keys(SIDES)
    if (r % 2 === 0) sides.reverse()
    const out = new Map(sides.map((side) => [side, round(side, posted, dir)]))
    const before = out.get('before')!
    if ([...out.values()].some((o) => o.dump !== before.dump)) throw new Error('the sides ended with different indexes')
    const cells = Object.keys(SIDES).map((side) => {
      const us = out.get(side)!.us
      return `${side} ${us.toFixed(2)} µs${side === 'before' ? '' : ` (${(us / before.us).toFixed(2)}x)`}`
    })
    console.log(`round ${r}: ${before.results} results, ${before.kept} rows kept; CPU per result: ${cells.join(', ')}`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

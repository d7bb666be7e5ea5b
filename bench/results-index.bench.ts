/**
 * The results index's writer thread, without the server: what indexing costs per result on a
 * database file, fed load-shaped batches (each session's invocations as bench/load.ts's sessions
 * make them: 8 results, 6 of them kept rows; a case result at each session's end), each committed
 * in one transaction, as the writer thread does (src/adapter/node/write-behind-index.ts).
 *
 *   npx node bench/results-index.bench.ts [sessions=200] [sessions per batch=8] [rounds=3]
 *
 * Four sides, interleaved round by round (order reversed every other round), each on a fresh file.
 * The first three take the batches as JSON, as the main thread posted them before 2026-11-27 (each
 * parsed on the thread, then `recordAll`): `before` is the index over a Sql without `run` (every
 * insert `... RETURNING id`, as a Durable Object's storage still is) with the thread's former
 * settings (a checkpoint every 1,000 WAL pages); `run` the index over node:sqlite's Sql, same
 * settings; `run + checkpoint` with the settings of src/adapter/node/writer-pragmas.ts. The fourth,
 * `flat rows`, is the thread as it is now: each batch a flat array of primitives (pushIndexRow),
 * cloned as postMessage clones it, then `recordRows`. All must end with the same index (checked).
 * CPU is this thread's (user + system). Then the main thread's part of each format, per result:
 * making the batch (the data's text already made, as the server's is) and the clone.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deserialize, serialize } from 'node:v8'
import { DatabaseSync } from 'node:sqlite'
import { evalCaseResultValue } from '../src/adk/results-json.ts'
import { WRITER_PRAGMAS } from '../src/adapter/node/writer-pragmas.ts'
import { recordBatch, sqlTransaction } from '../src/config/results-index.ts'
import type { EngineEmission } from '../src/engine/types.ts'
import { createSessionEngine } from '../src/engine/session-engine.ts'
import { decodeAll } from '../src/ingest/index.ts'
import { sqliteResultsIndex } from '../src/monitor/results-index.ts'
import { INDEX_ROW_VALUES, indexedDataJson, indexRowOf, type IndexRowValue, pushIndexRow } from '../src/monitor/results-index-rows.ts'
import type { FedResult } from '../src/session/result-feed.ts'
import { resultDataJson } from '../src/session/result-json.ts'
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

/**
 * A result as the main thread posted it to the index thread before 2026-11-27: one JSON object per
 * result in a JSON array, the data as the index would keep it.
 */
function jsonRow(r: FedResult): string {
  const { event } = r
  const data = event.type === 'invocation.started' || event.type === 'criterion.progress'
    ? `{"invocation_index":${JSON.stringify(event.data.invocation_index)}}`
    : indexedDataJson(event.data, resultDataJson(event.data))
  const appName = r.appName !== undefined ? `,"appName":${JSON.stringify(r.appName)}` : ''
  return `{"sessionId":${JSON.stringify(r.sessionId)}${appName},"atMs":${JSON.stringify(r.atMs)},"event":{"seq":${event.seq},` +
    `"type":${JSON.stringify(event.type)},"key":${JSON.stringify(event.key)},"data":${data}}}`
}

/**
 * Both formats of every batch as the thread receives them (V8's serialization, what postMessage
 * uses), and the main thread's CPU to make and serialize each format (µs, all batches).
 */
type Posted = { json: Buffer[]; flat: Buffer[]; jsonMainUs: number; flatMainUs: number; results: number }

/** The batches the thread is posted: invocation k of PER_BATCH sessions at a time, case results last. */
function batches(events: FedResult['event'][]): Posted {
  const byInvocation = new Map<number, FedResult['event'][]>()
  const last: FedResult['event'][] = []
  for (const e of events) {
    const k = (e.data as { invocation_index?: number }).invocation_index
    if (typeof k !== 'number') last.push(e)
    else byInvocation.set(k, [...(byInvocation.get(k) ?? []), e])
  }
  let atMs = Date.UTC(2026, 10, 27)
  const fed: FedResult[][] = []
  for (const group of [...byInvocation.values(), last]) {
    for (let s0 = 0; s0 < SESSIONS; s0 += PER_BATCH) {
      const batch: FedResult[] = []
      for (let s = s0; s < Math.min(SESSIONS, s0 + PER_BATCH); s++) {
        for (const event of group) batch.push({ sessionId: `load-${s}`, appName: 'weather', atMs: atMs++, event })
      }
      fed.push(batch)
    }
  }
  // The server has each result's text made when it was logged.
  for (const batch of fed) for (const r of batch) resultDataJson(r.event.data)
  const t0 = process.threadCpuUsage()
  const json = fed.map((batch) => serialize(`[${batch.map(jsonRow).join(',')}]`))
  const t1 = process.threadCpuUsage()
  const flat = fed.map((batch) => {
    const rows: IndexRowValue[] = []
    for (const r of batch) pushIndexRow(rows, indexRowOf(r, resultDataJson))
    return serialize(rows)
  })
  const t2 = process.threadCpuUsage()
  const us = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => b.user + b.system - a.user - a.system
  return { json, flat, jsonMainUs: us(t0, t1), flatMainUs: us(t1, t2), results: fed.reduce((n, b) => n + b.length, 0) }
}

/** The thread's settings before the checkpoint interval was raised. */
const BEFORE_PRAGMAS = 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000'
const SIDES: Record<string, { sql: (sql: Sql) => Sql; pragmas: string }> = {
  before: { sql: (sql) => ({ query: sql.query }), pragmas: BEFORE_PRAGMAS },
  run: { sql: (sql) => sql, pragmas: BEFORE_PRAGMAS },
  'run + checkpoint': { sql: (sql) => sql, pragmas: WRITER_PRAGMAS },
  'flat rows': { sql: (sql) => sql, pragmas: WRITER_PRAGMAS },
}

function round(side: string, posted: Posted, dir: string): { us: number; results: number; kept: number; dump: string } {
  const path = join(dir, `${side.replace(/\W+/g, '-')}.db`)
  const db = new DatabaseSync(path)
  db.exec(SIDES[side]!.pragmas)
  const sql = SIDES[side]!.sql(sqlFromDatabaseSync(db))
  const index = sqliteResultsIndex(sql, { transaction: sqlTransaction(sql) })
  let results = 0
  const t0 = process.threadCpuUsage()
  if (side === 'flat rows') {
    for (const bytes of posted.flat) {
      const rows = deserialize(bytes) as IndexRowValue[]
      results += rows.length / INDEX_ROW_VALUES
      index.recordRows(rows)
    }
  } else {
    for (const bytes of posted.json) {
      const batch = JSON.parse(deserialize(bytes) as string) as FedResult[]
      results += batch.length
      recordBatch(index, batch)
    }
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
    `results index: ${SESSIONS} sessions x ${INVOCATIONS} invocations, ${posted.json.length} batches of ${PER_BATCH} sessions' results`,
  )
  const perResult = (us: number) => `${(us / posted.results).toFixed(2)} µs`
  console.log(
    `main thread, making and serializing the batches, per result: json ${perResult(posted.jsonMainUs)}, flat rows ${
      perResult(posted.flatMainUs)
    }`,
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
    console.log(`round ${r}: ${before.results} results, ${before.kept} rows kept; index thread's CPU per result: ${cells.join(', ')}`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

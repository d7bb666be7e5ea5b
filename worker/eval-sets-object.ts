/**
 * The Durable Object that keeps one tenant's app's eval sets and their results for ADK web's Eval
 * tab (`evalsets/<tenant>/<app>` in the EVAL_SETS namespace, eval-sets-route.ts): the same app as
 * everywhere, its `/dev/apps/...` routes over this object's SQLite (the `ev_` tables of
 * src/http/dev-eval/sqlite-eval-set-store.ts). Eval sets have no TTL: the object never deletes them.
 *
 * Deployments from before this class kept an app's eval sets in the SESSIONS object of the same
 * name. On its first request an object with no tables of its own asks that one for them
 * (LEGACY_EXPORT_PATH, which the router never forwards) and keeps a copy, so an upgrade loses none.
 */
import { createApp } from '../src/http/app.ts'
import { depsFromEnv } from '../src/config/setup.ts'
import { sqliteEvalSetStore } from '../src/http/dev-eval/sqlite-eval-set-store.ts'
import { sqlFromDurable } from '../src/session/sql.ts'
import { memorySessionStore } from '../src/session/store.ts'
import { type DurableObjectState, stringEnv, type WorkerEnv } from './types.ts'
import { misconfigured, WORKER_PROCESS_BYTES } from './session-object.ts'
import { EVAL_TABLES, LEGACY_EXPORT_PATH, type TableExport } from './legacy-eval-sets.ts'

/** Marks an object that has asked for legacy eval sets (whatever it got), so it asks once. */
const CHECKED_TABLE = 'ev_legacy_checked'

export class EvalSets {
  state: DurableObjectState
  env: WorkerEnv
  name: string | undefined
  app: { fetch(request: Request): Response | Promise<Response> }
  #carried: Promise<void> | undefined

  constructor(state: DurableObjectState, env: WorkerEnv) {
    this.state = state
    this.env = env
    const setup = depsFromEnv(stringEnv(env), {
      // The Eval tab's runs score with engines of their own; no session is stored here.
      store: memorySessionStore({ sweeper: 'manual' }),
      defaultProcessBytes: WORKER_PROCESS_BYTES,
      workersAi: env.AI,
      evalSets: sqliteEvalSetStore(sqlFromDurable(state.storage.sql)),
    })
    this.app = setup.ok ? createApp({ ...setup.deps, cors: undefined }) : { fetch: () => misconfigured(setup.error) }
  }

  async fetch(request: Request): Promise<Response> {
    // Before the store's first read: it remembers whether its tables exist.
    await (this.#carried ??= this.#carryOver(request))
    return this.app.fetch(request)
  }

  /** Takes the eval sets a SESSIONS object of this name kept before this class existed, once. */
  async #carryOver(request: Request): Promise<void> {
    const sql = this.state.storage.sql
    if (sql.exec(`SELECT 1 AS x FROM sqlite_master WHERE ${EVAL_TABLES}`).toArray().length > 0) return
    const name = request.headers.get(OBJECT_NAME_HEADER)
    if (name && this.env.SESSIONS) {
      const legacy = this.env.SESSIONS.get(this.env.SESSIONS.idFromName(name))
      const answer = await legacy.fetch(new Request(`https://eval-sets.internal${LEGACY_EXPORT_PATH}`, { method: 'POST' }))
      const tables = answer.ok ? ((await answer.json()) as TableExport[]) : []
      for (const table of tables) {
        sql.exec(table.sql)
        for (const row of table.rows) {
          const columns = Object.keys(row)
          const marks = columns.map(() => '?').join(', ')
          sql.exec(`INSERT INTO "${table.name}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${marks})`, ...Object.values(row))
        }
      }
    }
    sql.exec(`CREATE TABLE IF NOT EXISTS ${CHECKED_TABLE} (at_ms INTEGER)`)
  }
}

/** The header the router names the object with (a Durable Object does not know its own name). */
export const OBJECT_NAME_HEADER = 'x-evalstream-object'

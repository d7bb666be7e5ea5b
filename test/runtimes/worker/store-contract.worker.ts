/**
 * The store contract inside a Durable Object, over its own `ctx.storage.sql` (the storage the
 * Worker's sessions use). Bundled and run by test/runtimes/session/store-contract-runtimes.test.ts.
 */
import { sqliteSessionStore } from '../../../src/session/store.ts'
import { sqlFromDurable } from '../../../src/session/sql.ts'
import type { DurableObjectNamespace, DurableObjectState } from '../../../worker/types.ts'
import { type ContractInput, runContract } from '../../support/store-contract.ts'

export class ContractObject {
  state: DurableObjectState
  constructor(state: DurableObjectState) {
    this.state = state
  }

  async fetch(request: Request): Promise<Response> {
    const input = (await request.json()) as ContractInput
    const sql = sqlFromDurable(this.state.storage.sql)
    const outcomes = await runContract({
      input,
      fresh: (o) => {
        // Each case starts from empty storage: our tables go (they come back on the first write).
        for (const row of sql.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'es\\_%' ESCAPE '\\'")) {
          sql.query(`DROP TABLE "${String(row.name)}"`)
        }
        return sqliteSessionStore(sql, o)
      },
      reopen: (o) => sqliteSessionStore(sql, o),
    })
    return Response.json(outcomes)
  }
}

export default {
  fetch: (request: Request, env: { CONTRACT: DurableObjectNamespace }) =>
    env.CONTRACT.get(env.CONTRACT.idFromName('contract')).fetch(request),
}

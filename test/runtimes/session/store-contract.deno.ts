/**
 * The store contract under Deno, over Deno's node:sqlite. Run by store-contract-runtimes.test.ts:
 *   deno run --allow-read --allow-write=DIR test/runtimes/session/store-contract.deno.ts DIR
 * Prints one JSON line: the outcome of each case.
 */
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { memorySessionStore, sqliteSessionStore } from '../../../src/session/store.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { CONFIG, MATCHING_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { runContract } from '../../support/store-contract.ts'

const dir = (globalThis as unknown as { Deno: { args: string[] } }).Deno.args[0]
if (!dir) throw new Error('usage: store-contract.deno.ts <writable dir>')
const input = { events: WEATHER_EVENTS, config: CONFIG, evalCase: MATCHING_CASE }
let n = 0
const outcomes = {
  memory: await runContract({ input, fresh: (o) => memorySessionStore(o) }),
  sqlite: await runContract({
    input,
    // Every case calls fresh() first: each gets its own file.
    fresh(o) {
      const file = join(dir, `contract-${++n}.db`)
      this.reopen = (o2) => sqliteSessionStore(sqlFromDatabaseSync(new DatabaseSync(file)), o2)
      return sqliteSessionStore(sqlFromDatabaseSync(new DatabaseSync(file)), o)
    },
  }),
}
console.log(JSON.stringify(outcomes))

/**
 * The session store contract (store-contract.ts) in-process on Node: the memory store and the
 * SQLite store over node:sqlite, on a file and in memory. Deno and the Durable Object run the same cases in
 * store-contract-runtimes.test.ts.
 * Covers: src/session/store.ts, src/session/records.ts, src/session/sqlite/records.ts.
 */
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, it } from 'vitest'
import { memorySessionStore, sqliteSessionStore } from '../../../src/session/store.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { CONFIG, MATCHING_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { type ContractHarness, STORE_CONTRACT } from '../../support/store-contract.ts'
import { testTempDir } from '../../support/temp-dir.ts'

const input = { events: WEATHER_EVENTS, config: CONFIG, evalCase: MATCHING_CASE }

const harnesses: Record<string, () => ContractHarness> = {
  memory: () => ({ input, fresh: (o) => memorySessionStore(o) }),
  'node:sqlite': () => {
    const file = join(testTempDir('evalstream-contract-'), 'db.sqlite')
    const db = new DatabaseSync(file)
    return {
      input,
      fresh: (o) => sqliteSessionStore(sqlFromDatabaseSync(db), o),
      // A second connection to the file, as a restarted process would open it.
      reopen: (o) => sqliteSessionStore(sqlFromDatabaseSync(new DatabaseSync(file)), o),
    }
  },
  // What EVALSTREAM_DB=:memory: runs (src/adapter/sqlite-db.ts): gone with the process, as the memory store.
  'node:sqlite in memory': () => ({
    input,
    fresh: (o) => sqliteSessionStore(sqlFromDatabaseSync(new DatabaseSync(':memory:'), { groupCommit: true }), { ...o, inMemory: true }),
  }),
}

for (const [name, harness] of Object.entries(harnesses)) {
  describe(`session store contract: ${name}`, () => {
    for (const c of STORE_CONTRACT) it(c.name, () => c.run(harness()))
  })
}

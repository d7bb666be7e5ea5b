/**
 * `npm start`: the evalstream API on Node (@hono/node-server).
 * PORT (default 8787), EVALSTREAM_CONFIG (inline JSON or a file path), AGENT_URL, judge variables,
 * EVALSTREAM_DB (default .evalstream/evalstream.db; `:memory:` keeps sessions in memory), and the
 * session limits read in src/config/setup.ts.
 */
import { startOtlpTicker } from '../../session/otlp-ticker.ts'
import { OTLP_TICK_MS } from '../../config/otlp.ts'
import { lookup } from 'node:dns/promises'
import { readFileSync } from 'node:fs'
import { getHeapStatistics } from 'node:v8'
import { createAdaptorServer } from '@hono/node-server'
import { createApp } from '../../http/app.ts'
import { depsFromEnv } from '../../config/setup.ts'
import { processBytesDefault } from '../../session/byte-budget.ts'
import { resultsIndexFromEnv } from '../../config/results-index.ts'
import { DEFAULT_DB_PATH, openSessionDb } from '../sqlite-db.ts'
import { installProcessGuard } from './process-guard.ts'
import { listenFailure, listenPort } from '../listen-port.ts'

installProcessGuard()

export { DEFAULT_PORT } from '../listen-port.ts'
/** Connections waiting to be accepted; the kernel caps it (Linux: net.core.somaxconn, 4096 by default). */
export const LISTEN_BACKLOG = 4096

const db = openSessionDb(process.env.EVALSTREAM_DB?.trim() || DEFAULT_DB_PATH)
const setup = depsFromEnv(process.env, {
  store: db.store,
  judgeCache: db.judgeCache,
  evalSets: db.evalSets,
  defaultProcessBytes: processBytesDefault(getHeapStatistics().heap_size_limit),
  // Monitored conversations' idle times, in the sessions' database: they survive a restart.
  otlpSql: db.indexSql,
  readFile: (p) => readFileSync(p, 'utf8'),
  metrics: true,
  // Session webhooks whose name resolves to an internal address are refused at send time.
  exporters: { resolve: async (host) => (await lookup(host, { all: true })).map((a) => a.address) },
})
if (!setup.ok) {
  console.error(`evalstream: ${setup.error}`)
  process.exit(2)
}
const index = resultsIndexFromEnv(process.env, db.indexSql, setup.deps.feed)
if (!index.ok) {
  console.error(`evalstream: ${index.error}`)
  process.exit(2)
}
// Traces whose root never came, and conversations gone quiet, are finalised by this timer.
if (setup.deps.otlp) startOtlpTicker(setup.deps.otlp.monitor, OTLP_TICK_MS)
const listen = listenPort(process.env.PORT)
if (!listen.ok) {
  console.error(`evalstream: ${listen.error}`)
  process.exit(2)
}
const port = listen.port
const hostname = process.env.HOST ?? '127.0.0.1'
const server = createAdaptorServer({ fetch: createApp({ ...setup.deps, resultsIndex: index.value.index }).fetch, hostname })
// A listen that fails (the port in use) stops the process: without this it would be a stray exception.
server.once('error', (error) => {
  if (server.listening) return console.error('evalstream: server error:', error)
  console.error(`evalstream: ${listenFailure(error, hostname, port)}`)
  db.close()
  process.exit(1)
})
// A burst of clients (a thousand sessions opening their streams at once) overflows Node's default
// backlog of 511 while the loop is busy, and their SYNs are dropped until a connect timeout.
server.listen({ port, host: hostname, backlog: LISTEN_BACKLOG }, () => {
  const address = server.address()
  console.log(`evalstream listening on http://${hostname}:${typeof address === 'object' && address ? address.port : port}`)
  for (const note of [db.note, ...(index.notes ?? []), ...setup.notes]) console.log(note)
})
const stop = () =>
  server.close(() => {
    // Queued OpenTelemetry exports and webhooks get QUEUE_CLOSE_DEADLINE_MS to go out.
    void setup.deps.exporters?.close().finally(() => {
      db.close()
      process.exit(0)
    })
  })
process.on('SIGINT', stop)
process.on('SIGTERM', stop)

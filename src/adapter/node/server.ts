/**
 * `npm start`: the evalstream API on Node (@hono/node-server).
 * PORT (default 8787), EVALSTREAM_CONFIG (inline JSON or a file path), AGENT_URL, judge variables,
 * EVALSTREAM_DB (default .evalstream/evalstream.db; `:memory:` keeps sessions in memory), and the
 * session limits read in src/config/setup.ts.
 */
import { startOtlpTicker } from '../otlp-ticker.ts'
import { OTLP_TICK_MS } from '../../config/otlp.ts'
import { lookup } from 'node:dns/promises'
import { readFileSync } from 'node:fs'
import type { Server as HttpServer } from 'node:http'
import { getHeapStatistics } from 'node:v8'
import { createAdaptorServer } from '@hono/node-server'
import { createApp } from '../../http/app.ts'
import { depsFromEnv } from '../../config/setup.ts'
import { createGeminiClient } from '../../judge/gemini-client.ts'
import { processBytesDefault } from '../../session/byte-budget.ts'
import { resultsIndexFromEnv } from '../../config/results-index.ts'
import { indexLimitsFromEnv } from '../../config/results-index.ts'
import { DEFAULT_DB_PATH, openSessionDb } from '../sqlite-db.ts'
import { indexOnSessionsWriter, indexPathFor } from './index-writer.ts'
import { type WriteBehindSql, writeBehindSql } from './write-behind-sql.ts'
import { admissionLimitsFromEnv } from '../../config/admission.ts'
import { type Admission, admissionFromLoop } from '../../http/admission.ts'
import { loopPressureMonitor } from './loop-monitor.ts'
import { installProcessGuard } from './process-guard.ts'
import { dashboardUrl, listenFailure, listenPort } from '../listen-port.ts'

installProcessGuard()

export { DEFAULT_PORT } from '../listen-port.ts'
/** Connections waiting to be accepted; the kernel caps it (Linux: net.core.somaxconn, 4096 by default). */
export const LISTEN_BACKLOG = 4096
/**
 * An idle keep-alive connection is closed after this long: above the idle timeouts of common clients
 * and proxies (undici 4 s, Node's agent 5 s, load balancers 60 s), so the client closes first and
 * never sends a request on a connection the server is closing; every new connection instead waits
 * in the accept queue for a turn of the event loop.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000

const dbPath = process.env.EVALSTREAM_DB?.trim() || DEFAULT_DB_PATH
const indexLimits = indexLimitsFromEnv(process.env)
// Journal, results and session rows are written by a worker thread (write-behind-sql.ts), and with
// them the results index, into its own file beside the sessions' (index-writer.ts).
let sessionsWriter: WriteBehindSql | undefined
const db = openSessionDb(dbPath, {
  sql: (path) =>
    sessionsWriter = writeBehindSql(path, indexLimits.ok ? { index: { path: indexPathFor(path), limits: indexLimits.value } } : {}),
})
const setup = depsFromEnv(process.env, {
  store: db.store,
  judgeCache: db.judgeCache,
  evalSets: db.evalSets,
  defaultProcessBytes: processBytesDefault(getHeapStatistics().heap_size_limit),
  // Monitored conversations' idle times, in the sessions' database: they survive a restart.
  otlpSql: db.indexSql,
  readFile: (p) => readFileSync(p, 'utf8'),
  metrics: true,
  // The SDK's Gemini client: Vertex AI with application default credentials as well as the Gemini API.
  geminiClient: createGeminiClient,
  // Session webhooks whose name resolves to an internal address are refused at send time.
  exporters: { resolve: async (host) => (await lookup(host, { all: true })).map((a) => a.address) },
})
if (!setup.ok) {
  console.error(`evalstream: ${setup.error}`)
  process.exit(2)
}
// With a database file, the results index is read here and written by the sessions' writer thread.
const writer = sessionsWriter && indexLimits.ok ? indexOnSessionsWriter(sessionsWriter, indexPathFor(dbPath)) : undefined
const index = writer
  ? resultsIndexFromEnv(process.env, writer.readSql, setup.deps.feed, { write: writer.write })
  : resultsIndexFromEnv(process.env, db.indexSql, setup.deps.feed)
if (!index.ok) {
  console.error(`evalstream: ${index.error}`)
  process.exit(2)
}
const admissionLimits = admissionLimitsFromEnv(process.env)
if (!admissionLimits.ok) {
  console.error(`evalstream: ${admissionLimits.error}`)
  process.exit(2)
}
// New sessions wait (503, Retry-After) while the loop is late and busy with its own work; admitted
// ones are served first. The loop is measured from the moment the server listens: start-up (module
// loading, the first requests compiling their code) is never a reason to refuse.
let admit: Admission = () => undefined
const admission: Admission = () => admit()
// Traces whose root never came, and conversations gone quiet, are finalised by this timer.
if (setup.deps.otlp) startOtlpTicker(setup.deps.otlp.monitor, OTLP_TICK_MS)
const listen = listenPort(process.env.PORT)
if (!listen.ok) {
  console.error(`evalstream: ${listen.error}`)
  process.exit(2)
}
const port = listen.port
const hostname = process.env.HOST ?? '127.0.0.1'
const app = createApp({
  ...setup.deps,
  resultsIndex: index.value.index,
  admission,
  ...(db.durable ? { writesDurable: db.durable } : {}),
})
const server = createAdaptorServer({ fetch: app.fetch, hostname }) // Plain HTTP/1.1 here (createAdaptorServer without http2 options).
;(server as HttpServer).keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS // Node requires the headers timeout above the keep-alive timeout (else an idle socket is cut mid-request).
;(server as HttpServer).headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000
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
  admit = admissionFromLoop(loopPressureMonitor().read, admissionLimits.value)
  const address = server.address()
  const listening = typeof address === 'object' && address ? address.port : port
  console.log(`evalstream listening on http://${hostname}:${listening}`)
  console.log(`dashboard: ${dashboardUrl(hostname, listening)} (open it in a browser)`)
  for (const note of [db.note, ...(index.notes ?? []), ...setup.notes]) console.log(note)
})
const stop = () =>
  server.close(() => {
    // Queued OpenTelemetry exports and webhooks get QUEUE_CLOSE_DEADLINE_MS to go out.
    void Promise.allSettled([setup.deps.exporters?.close()])
      .then(() => {
        writer?.close()
        return db.close()
      })
      .finally(() => process.exit(0))
  })
process.on('SIGINT', stop)
process.on('SIGTERM', stop)

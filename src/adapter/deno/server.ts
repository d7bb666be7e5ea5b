/**
 * `npm run start:deno`: the evalstream API on Deno.serve. Same variables as Node. EVALSTREAM_DB
 * defaults to .evalstream/evalstream.db when Deno may write there (`npm run start:deno` grants
 * --allow-write=.evalstream), and to memory (with a note saying so) when it may not.
 */
import { getHeapStatistics } from 'node:v8'
import { startOtlpTicker } from '../otlp-ticker.ts'
import { OTLP_TICK_MS } from '../../config/otlp.ts'
import { dashboardUrl, listenFailure, listenPort } from '../listen-port.ts'
import { createApp } from '../../http/app.ts'
import { depsFromEnv } from '../../config/setup.ts'
import { createGeminiClient } from '../../judge/gemini-client.ts'
import { processBytesDefault } from '../../session/byte-budget.ts'
import { resultsIndexFromEnv } from '../../config/results-index.ts'
import { DEFAULT_DB_PATH, MEMORY_DB, openSessionDb } from '../sqlite-db.ts'
import { installProcessGuard } from './process-guard.ts'

installProcessGuard()

// Typed locally, not via `declare`: tsc has no Deno types and deno check already has the real ones.
type DenoApi = {
  env: { toObject(): Record<string, string> }
  readTextFileSync(path: string): string
  exit(code: number): never
  addSignalListener(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void
  resolveDns(name: string, type: 'A' | 'AAAA'): Promise<string[]>
  permissions: { querySync(descriptor: { name: 'write'; path: string }): { state: string } }
  serve(
    options: { port: number; hostname: string; onListen?(addr: { port: number; hostname: string }): void },
    handler: (request: Request) => Response | Promise<Response>,
  ): unknown
}
const Deno: DenoApi = (globalThis as unknown as { Deno: DenoApi }).Deno

const env = Deno.env.toObject()
const canWriteDefault = Deno.permissions.querySync({ name: 'write', path: '.evalstream' }).state === 'granted'
const dbPath = env.EVALSTREAM_DB?.trim() || (canWriteDefault ? DEFAULT_DB_PATH : MEMORY_DB)
const db = openSessionDb(dbPath)
// Session webhooks whose name resolves to an internal address are refused at send time.
const resolve = async (host: string) =>
  (await Promise.all((['A', 'AAAA'] as const).map((t) => Deno.resolveDns(host, t).catch(() => [] as string[])))).flat()
const setup = depsFromEnv(env, {
  store: db.store,
  judgeCache: db.judgeCache,
  evalSets: db.evalSets,
  defaultProcessBytes: processBytesDefault(getHeapStatistics().heap_size_limit),
  // Monitored conversations' idle times, in the sessions' database: they survive a restart.
  otlpSql: db.indexSql,
  readFile: (p) => Deno.readTextFileSync(p),
  metrics: true,
  // The SDK's Gemini client: Vertex AI with application default credentials as well as the Gemini API.
  geminiClient: createGeminiClient,
  exporters: { resolve },
})
if (!setup.ok) {
  console.error(`evalstream: ${setup.error}`)
  Deno.exit(2)
}
const index = resultsIndexFromEnv(env, db.indexSql, setup.deps.feed)
if (!index.ok) {
  console.error(`evalstream: ${index.error}`)
  Deno.exit(2)
}
const notes = [
  ...(index.notes ?? []),
  env.EVALSTREAM_DB?.trim() || canWriteDefault
    ? db.note
    : `sessions in memory: no write permission for .evalstream (run with --allow-write=.evalstream, or set EVALSTREAM_DB)`,
  ...setup.notes,
]
// Traces whose root never came, and conversations gone quiet, are finalised by this timer.
if (setup.deps.otlp) startOtlpTicker(setup.deps.otlp.monitor, OTLP_TICK_MS)
// Acknowledged means committed: the database commits once per turn, and a request that wrote is
// answered after that commit.
const app = createApp({ ...setup.deps, resultsIndex: index.value.index, ...(db.durable ? { writesDurable: db.durable } : {}) })
const hostname = env.HOST ?? '127.0.0.1'
const listen = listenPort(env.PORT)
if (!listen.ok) {
  console.error(`evalstream: ${listen.error}`)
  Deno.exit(2)
}
try {
  Deno.serve(
    {
      port: listen.port,
      hostname,
      onListen: ({ port }) => {
        console.log(`evalstream listening on http://${hostname}:${port}`)
        console.log(`dashboard: ${dashboardUrl(hostname, port)} (open it in a browser)`)
        for (const note of notes) console.log(note)
      },
    },
    app.fetch,
  )
} catch (error) {
  // The port in use: stop with the reason, not a stray exception the guard would log and keep.
  console.error(`evalstream: ${listenFailure(error, hostname, listen.port)}`)
  Deno.exit(1)
}
// Queued OpenTelemetry exports and webhooks get QUEUE_CLOSE_DEADLINE_MS to go out before exit; the
// database then commits what this turn wrote and closes.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  Deno.addSignalListener(
    signal,
    () => void Promise.allSettled([setup.deps.exporters?.close()]).then(() => db.close()).finally(() => Deno.exit(0)),
  )
}

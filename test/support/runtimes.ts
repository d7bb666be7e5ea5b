/**
 * Starting the evalstream app on each runtime for the API suite: Node in-process on a real socket,
 * Deno as a child process of the Deno adapter, workerd through Miniflare (test/worker).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { serve } from '@hono/node-server'
import { Miniflare } from 'miniflare'
import { createApp } from '../../src/http/app.ts'
import { memorySessionStore } from '../../src/session/store.ts'
import { depsFromEnv, type Env } from '../../src/config/setup.ts'
import { bundleWorker, servingBundle } from './worker-build.ts'
import { spawnServer } from './server-process.ts'
import { NO_JUDGE_ENV } from './no-judge-env.ts'

export type Running = { baseUrl: string; stop(): Promise<void> }

export { NO_JUDGE_ENV }

/**
 * Admission's delay limit out of reach: a spawned server whose test is not about admission never
 * refuses a session because the machine running the suite is busy. The tests about admission
 * drive the loop themselves (test/runtimes/http/admission-loop.test.ts, test/unit/http/admission.test.ts).
 */
export const ADMISSION_OUT_OF_REACH: Env = { EVALSTREAM_ADMISSION_LAG_MS: String(24 * 3600 * 1000) }

/**
 * For server processes a test spawns: no judge, sessions in memory, not in the working directory's
 * .evalstream/evalstream.db (which would carry sessions from one test run to the next), and no
 * admission by the loop's delay (nothing a test asserts may depend on how loaded the machine is).
 */
export const SPAWNED_SERVER_ENV: Env = { ...NO_JUDGE_ENV, ...ADMISSION_OUT_OF_REACH, EVALSTREAM_DB: ':memory:' }

/** A port nobody is listening on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** @example const node = await startNode({ AGENT_URL: agent.url }) */
export async function startNode(env: Env): Promise<Running> {
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...env }, { store: memorySessionStore() })
  if (!setup.ok) throw new Error(setup.error)
  const app = createApp(setup.deps)
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({
        baseUrl: `http://127.0.0.1:${info.port}`,
        stop: () => new Promise((done) => server.close(() => done())),
      }))
  })
}

/** Spawns `deno run` of the Deno adapter on a free port and waits for its "listening" line. */
export async function startDeno(env: Env): Promise<Running> {
  const server = await spawnServer('deno', { env })
  return { baseUrl: server.baseUrl, stop: () => server.stop() }
}

/**
 * The Worker in workerd through Miniflare, on a real socket, with SQLite Durable Objects persisted
 * in a temporary folder (so a restart keeps them). EVALSTREAM_TEST_HOOKS enables the eviction hook.
 * The port is the one workerd itself was given by the OS (port 0): no window in which another
 * server can take it. stop() removes the bundle, and the storage folder unless the caller gave it.
 */
export async function startWorker(
  bindings: Record<string, string>,
  persistDir?: string,
  options: { withoutEvalSets?: boolean } = {},
): Promise<Running & { mf: Miniflare }> {
  const scriptPath = await bundleWorker()
  const storage = persistDir ?? mkdtempSync(join(tmpdir(), 'evalstream-do-'))
  const mf = new Miniflare({
    ...servingBundle(scriptPath),
    durableObjects: {
      SESSIONS: { className: 'EvalSession', useSQLite: true },
      RUNS: { className: 'EvalRun', useSQLite: true },
      // A deployment from before the EVAL_SETS binding, when asked (its eval sets in SESSIONS objects).
      ...(options.withoutEvalSets ? {} : { EVAL_SETS: { className: 'EvalSets', useSQLite: true } }),
      OTLP: { className: 'OtlpShard', useSQLite: true },
    },
    durableObjectsPersist: storage,
    bindings: { ...NO_JUDGE_ENV, EVALSTREAM_TEST_HOOKS: '1', ...bindings },
  })
  const url = await mf.ready
  const stop = async () => {
    await mf.dispose()
    rmSync(dirname(scriptPath), { recursive: true, force: true })
    if (!persistDir) rmSync(storage, { recursive: true, force: true })
  }
  return { mf, baseUrl: url.origin, stop }
}

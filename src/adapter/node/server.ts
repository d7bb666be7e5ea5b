/**
 * `npm start`: the evalstream API on Node (@hono/node-server), sessions in memory.
 * PORT (default 8787), EVALSTREAM_CONFIG (inline JSON or a file path), AGENT_URL, judge variables.
 */
import { readFileSync } from 'node:fs'
import { serve } from '@hono/node-server'
import { createApp } from '../../http/app.ts'
import { memorySessionStore } from '../../host/session-store.ts'
import { depsFromEnv } from '../../host/setup.ts'
import { installProcessGuard } from './process-guard.ts'

installProcessGuard()

export const DEFAULT_PORT = 8787

const setup = depsFromEnv(process.env, { store: memorySessionStore(), readFile: (p) => readFileSync(p, 'utf8') })
if (!setup.ok) {
  console.error(`evalstream: ${setup.error}`)
  process.exit(2)
}
const port = Number(process.env.PORT ?? DEFAULT_PORT)
const hostname = process.env.HOST ?? '127.0.0.1'
const server = serve({ fetch: createApp(setup.deps).fetch, port, hostname }, (info) => {
  console.log(`evalstream listening on http://${hostname}:${info.port}`)
  for (const note of setup.notes) console.log(note)
})
const stop = () => server.close(() => process.exit(0))
process.on('SIGINT', stop)
process.on('SIGTERM', stop)

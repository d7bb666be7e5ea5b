/**
 * `npm run start:deno`: the evalstream API on Deno.serve, sessions in memory. Same variables as Node.
 */
import { createApp } from '../../http/app.ts'
import { memorySessionStore } from '../../host/session-store.ts'
import { depsFromEnv } from '../../host/setup.ts'
import { installProcessGuard } from './process-guard.ts'

installProcessGuard()

// Typed locally, not via `declare`: tsc has no Deno types and deno check already has the real ones.
type DenoApi = {
  env: { toObject(): Record<string, string> }
  readTextFileSync(path: string): string
  exit(code: number): never
  serve(
    options: { port: number; hostname: string; onListen?(addr: { port: number; hostname: string }): void },
    handler: (request: Request) => Response | Promise<Response>,
  ): unknown
}
const Deno: DenoApi = (globalThis as unknown as { Deno: DenoApi }).Deno

const env = Deno.env.toObject()
const setup = depsFromEnv(env, { store: memorySessionStore(), readFile: (p) => Deno.readTextFileSync(p) })
if (!setup.ok) {
  console.error(`evalstream: ${setup.error}`)
  Deno.exit(2)
}
const app = createApp(setup.deps)
const hostname = env.HOST ?? '127.0.0.1'
Deno.serve(
  {
    port: Number(env.PORT ?? 8787),
    hostname,
    onListen: ({ port }) => {
      console.log(`evalstream listening on http://${hostname}:${port}`)
      for (const note of setup.notes) console.log(note)
    },
  },
  app.fetch,
)

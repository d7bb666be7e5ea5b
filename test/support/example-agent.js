#!/usr/bin/env node
/**
 * `npm run example:agent`: the bundled example agent (ADK for JavaScript's real `adk api_server`,
 * from test/e2e/agent) on http://127.0.0.1:8000, to try `evalstream run` and proxy mode against.
 * Its app `scripted_weather_agent` answers weather and time questions with a scripted model, so it
 * needs no Gemini key and reaches no network. Installs the agent package first when it is missing.
 *
 * `--web` runs `adk web` instead, which also serves ADK's web UI at /dev-ui/ (for the Eval tab
 * through evalstream's proxy mode, docs/eval-tab.md).
 *
 * @example
 * // npm run example:agent            (PORT=8001 npm run example:agent for another port)
 * // npm run example:agent -- --web
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const AGENT_DIR = fileURLToPath(new URL('../e2e/agent/', import.meta.url))
const CLI = 'node_modules/@google/adk-devtools/dist/esm/cli_entrypoint.js'
const port = process.env.PORT ?? '8000'
const command = process.argv.includes('--web') ? 'web' : 'api_server'

if (!existsSync(new URL(CLI, new URL('../e2e/agent/', import.meta.url)))) {
  const setup = spawnSync(process.execPath, [fileURLToPath(new URL('./setup-e2e.js', import.meta.url))], { stdio: 'inherit' })
  if (setup.status !== 0) process.exit(setup.status ?? 1)
}
console.error(`example agent: adk ${command} on http://127.0.0.1:${port} (apps: scripted_weather_agent, weather_agent)`)
// --compile/--bundle false: Node 24 loads the agents' TypeScript directly.
const child = spawn(process.execPath, [
  CLI,
  command,
  'agents',
  '--host',
  '127.0.0.1',
  '--port',
  port,
  '--compile',
  'false',
  '--bundle',
  'false',
  // In-memory sessions whatever DATABASE_URL says: the agent's install has no sqlite3 (stubs/sqlite3).
  '--session_service_uri',
  'memory://',
], {
  cwd: AGENT_DIR,
  stdio: 'inherit',
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))

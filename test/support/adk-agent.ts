/**
 * Starts and stops a REAL `adk api_server` (ADK for JavaScript 2.0.0, from test/e2e/agent/) on a free
 * loopback port, serving test/e2e/agent/agents/: `weather_agent` (the stock Gemini model redirected to
 * a scripted local stub) and `scripted_weather_agent` (a scripted BaseLlm). Test-only; nothing here
 * touches the network beyond 127.0.0.1.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type ScriptedGemini, startScriptedGemini } from '../e2e/agent/scripted-gemini.ts'

/** The agent package folder (its own package.json and node_modules). */
export const AGENT_PACKAGE_DIR = fileURLToPath(new URL('../e2e/agent/', import.meta.url))
/** The command that installs the agent package; a missing install fails with this hint. */
export const AGENT_INSTALL_COMMAND = 'npm run setup:e2e'
/** Left by test/support/setup-e2e.js when the install failed (its FAILURE_FILE). */
const SETUP_FAILURE_FILE = join(AGENT_PACKAGE_DIR, 'node_modules', '.evalstream-setup-failed')
const CLI_ENTRY = 'node_modules/@google/adk-devtools/dist/esm/cli_entrypoint.js'
const DEFAULT_APPS = ['weather_agent', 'scripted_weather_agent']
const DEFAULT_START_TIMEOUT_MS = 240_000
const STOP_GRACE_MS = 5_000
const POLL_INTERVAL_MS = 100
/** How much of the server's output to keep for error messages. */
const MAX_LOG_CHARS = 20_000
const PORT_ATTEMPTS = 3

export type AdkAgentOptions = {
  /** Use this Gemini-protocol server instead of starting the scripted stub. */
  geminiBaseUrl?: string
  /** Pause between streamed text chunks of the scripted stub (default 0: each after the previous is sent). */
  chunkDelayMs?: number
  /** Apps that must be listed by GET /list-apps before the server counts as ready. */
  apps?: string[]
  /** Give up (and report the server's output) after this long; default 60 s. */
  startTimeoutMs?: number
  /** Extra environment for the server process. */
  env?: Record<string, string>
  /** `web` also serves the stock ADK web UI at /dev-ui/ (`adk web`); default `api_server`. */
  command?: 'api_server' | 'web'
}

export type AdkAgent = {
  /** Base URL of the api_server, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string
  /** Process id of the server, which leads its own process group. */
  pid: number
  /** The scripted stub, when this helper started it (null with `geminiBaseUrl`). */
  gemini: ScriptedGemini | null
  /** Everything the server printed so far (tail), for debugging failed assertions. */
  logs(): string
  /** Kills the server's whole process group and the stub; safe to call twice. */
  stop(): Promise<void>
}

/**
 * Spawns `adk api_server` and resolves once it lists the expected apps.
 * @example
 * const agent = await startAdkAgent()
 * const res = await fetch(`${agent.url}/list-apps`) // ["weather_agent"]
 * await agent.stop()
 */
export async function startAdkAgent(opts: AdkAgentOptions = {}): Promise<AdkAgent> {
  if (existsSync(SETUP_FAILURE_FILE)) {
    throw new Error(
      `the e2e agent install failed, so the e2e tests cannot run (fix it and re-run \`${AGENT_INSTALL_COMMAND}\`):\n${
        readFileSync(SETUP_FAILURE_FILE, 'utf8')
      }`,
    )
  }
  if (!existsSync(join(AGENT_PACKAGE_DIR, CLI_ENTRY))) {
    throw new Error(`ADK agent package is not installed (no ${join(AGENT_PACKAGE_DIR, CLI_ENTRY)}). Run: ${AGENT_INSTALL_COMMAND}`)
  }
  const gemini = opts.geminiBaseUrl ? null : await startScriptedGemini({ chunkDelayMs: opts.chunkDelayMs })
  const geminiUrl = opts.geminiBaseUrl ?? gemini!.url
  let lastError: unknown
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    try {
      return await launch(await freePort(), geminiUrl, gemini, opts)
    } catch (err) {
      lastError = err
      // Only a lost race for the port is worth another try; anything else is a real failure.
      if (!(err instanceof Error && /already in use|EADDRINUSE/.test(err.message))) break
    }
  }
  await gemini?.close()
  throw lastError
}

async function launch(port: number, geminiUrl: string, gemini: ScriptedGemini | null, opts: AdkAgentOptions): Promise<AdkAgent> {
  const url = `http://127.0.0.1:${port}`
  let log = ''
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-MAX_LOG_CHARS)
  }
  // --compile/--bundle false: Node 24 loads agent.ts directly (type stripping), so the loader
  // writes no esbuild bundle to a temp folder that a killed server would leave behind.
  const args = [
    CLI_ENTRY,
    opts.command ?? 'api_server',
    'agents',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--compile',
    'false',
    '--bundle',
    'false',
    // ADK's in-memory sessions, whatever DATABASE_URL says: the agent's install has no sqlite3 (a
    // stand-in that throws, test/e2e/agent/stubs/sqlite3), so a database URI could not work.
    '--session_service_uri',
    'memory://',
  ]
  const child = spawn(process.execPath, args, {
    cwd: AGENT_PACKAGE_DIR,
    env: agentEnv(geminiUrl, opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group, so stop() can kill the server and anything it spawned in one signal.
    detached: true,
  })
  child.stdout!.on('data', append)
  child.stderr!.on('data', append)
  // Settles when the process is gone, or could not be spawned at all ('exit' never comes then).
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(`exited (code ${code}, signal ${signal})`))
    child.once('error', (err) => resolve(`could not be spawned: ${err.message}`))
  })
  const onParentExit = () => killGroup(child, 'SIGKILL')
  process.once('exit', onParentExit)

  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    process.off('exit', onParentExit)
    await terminate(child, exited)
    await gemini?.close()
  }

  const ready = await waitUntilReady(url, opts.apps ?? DEFAULT_APPS, exited, opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS)
  if (ready !== true) {
    process.off('exit', onParentExit)
    await terminate(child, exited)
    throw new Error(`adk api_server did not start on ${url}: ${ready}\n--- server output (tail) ---\n${log}`)
  }
  return { url, pid: child.pid!, gemini, logs: () => log, stop }
}

function agentEnv(geminiUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  // Nothing may route the agent to a real Google endpoint: drop every credential / backend switch.
  for (
    const key of [
      'GOOGLE_API_KEY',
      'GEMINI_API_KEY',
      'GOOGLE_GENAI_USE_VERTEXAI',
      'GOOGLE_GENAI_USE_ENTERPRISE',
      'GOOGLE_VERTEX_BASE_URL',
      'GOOGLE_CLOUD_PROJECT',
      'GOOGLE_CLOUD_LOCATION',
      'GOOGLE_APPLICATION_CREDENTIALS',
    ]
  ) {
    delete env[key]
  }
  return { ...env, GOOGLE_GEMINI_BASE_URL: geminiUrl, GOOGLE_GENAI_API_KEY: 'fake-key', NO_COLOR: '1', ...extra }
}

/** Resolves true when GET /list-apps lists every app, or a reason string when it never will. */
async function waitUntilReady(url: string, apps: string[], exited: Promise<string>, timeoutMs: number): Promise<true | string> {
  const deadline = Date.now() + timeoutMs
  let died: string | null = null
  void exited.then((why) => (died = why))
  let last = 'no answer yet'
  while (Date.now() < deadline) {
    if (died) return `server ${died} before it was ready`
    try {
      const res = await fetch(`${url}/list-apps`, { signal: AbortSignal.timeout(2_000) })
      const listed = res.ok ? ((await res.json()) as unknown) : null
      if (Array.isArray(listed) && apps.every((app) => listed.includes(app))) return true
      // Listed but incomplete means an agent failed to load; that will not fix itself.
      if (Array.isArray(listed)) {
        return `GET /list-apps gave ${JSON.stringify(listed)}, expected ${JSON.stringify(apps)} (an agent failed to load)`
      }
      last = `GET /list-apps answered ${res.status}`
    } catch (err) {
      last = String(err)
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS))
  }
  return `timed out after ${timeoutMs} ms (last: ${last})`
}

async function terminate(child: ChildProcess, exited: Promise<string>): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  killGroup(child, 'SIGTERM')
  const graceful = await Promise.race([exited.then(() => true), sleep(STOP_GRACE_MS).then(() => false)])
  if (!graceful) {
    killGroup(child, 'SIGKILL')
    await exited
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // The group is already gone.
  }
}

/** A port the OS just handed out on loopback; the caller may lose a race for it (then retries). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * A real evalstream server process for tests: `src/adapter/node/server.ts` under Node or
 * `src/adapter/deno/server.ts` under `deno run` (or another entry script), on a free port, with the
 * test's variables over SPAWNED_SERVER_ENV. Resolves once the process printed every line it was
 * asked to wait for ("evalstream listening" by default); rejects with its output if it exits first.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { freePort, SPAWNED_SERVER_ENV } from './runtimes.ts'

export type ServerProcess = {
  baseUrl: string
  port: number
  child: ChildProcess
  /** Everything it printed so far (stdout and stderr). */
  output(): string
  /** Sends `signal` (SIGTERM: a clean stop; SIGKILL: a crash) and resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

export type ServerProcessOptions = {
  env?: Record<string, string | undefined>
  /** Another entry script (a test harness around the adapter). */
  entry?: string
  /** Node only: another Node binary than the one running the tests (an older release the package supports). */
  node?: string
  /** Deno only: the one folder it may write (a SQLite file's folder); none by default. */
  denoWrite?: string
  /** Printed lines to wait for; default: the listening line. */
  waitFor?: string[]
  /** How long to wait for them, in ms (Deno compiles on its first start). */
  timeoutMs?: number
}

/**
 * Every server this test process started and has not seen exit: killed when the test process
 * exits, so a test that failed before its `stop()` (a timeout, a thrown hook) leaves no server
 * running behind it.
 */
const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** @example const server = await spawnServer('node', { env: { EVALSTREAM_DB: file } }); await server.stop('SIGKILL') */
export async function spawnServer(runtime: 'node' | 'deno', options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const port = await freePort()
  const entry = options.entry ?? (runtime === 'node' ? 'src/adapter/node/server.ts' : 'src/adapter/deno/server.ts')
  const write = options.denoWrite === undefined ? [] : [`--allow-write=${options.denoWrite}`]
  // The deno binary itself (npm ships it in node_modules), so a signal reaches Deno, not a wrapper.
  const [command, args] = runtime === 'node'
    ? [options.node ?? process.execPath, [entry]]
    : ['node_modules/.bin/deno', ['run', '--allow-net', '--allow-env', '--allow-read', ...write, entry]]
  const child = spawn(command, args, {
    cwd: process.cwd(),
    env: { ...process.env, ...SPAWNED_SERVER_ENV, ...options.env, PORT: String(port), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  child.once('exit', () => running.delete(child))
  let output = ''
  const needles = options.waitFor ?? ['evalstream listening']
  const timeoutMs = options.timeoutMs ?? 240_000
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${entry} did not print ${JSON.stringify(needles)} within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    )
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (needles.every((n) => output.includes(n))) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${entry} exited with ${code}:\n${output}`))
    })
  })
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    child,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill(signal)
      }),
  }
}

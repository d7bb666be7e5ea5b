/**
 * A server process for a bench: the Node server with `npm start`'s flags (or another script, such
 * as the replay baseline), on a free port and a fresh SQLite file in its own temp dir, optionally
 * pinned to some CPUs (Linux `taskset`). Ready once it prints "listening"; `stop` ends it with
 * SIGTERM and removes its temp dir.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort } from './proc-stats.ts'
import { startFlags } from './server-flags.ts'

export type ServerChild = { child: ChildProcess; pid: number; base: string; stop(): Promise<void> }

/** @example const server = await startServerChild({ script: 'src/adapter/node/server.ts' }); ...; await server.stop() */
export async function startServerChild(options: { script: string; env?: Record<string, string>; cpus?: string }): Promise<ServerChild> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'evalstream-bench-server-'))
  const node = [...startFlags('.'), resolve(options.script)]
  // taskset execs node in its own process: the pid is the server's.
  const [command, args] = options.cpus !== undefined
    ? ['taskset', ['-c', options.cpus, process.execPath, ...node]]
    : [process.execPath, node]
  const child = spawn(command as string, args as string[], {
    env: {
      ...process.env,
      PORT: String(port),
      EVALSTREAM_DB: join(dir, 'evalstream.db'),
      GEMINI_API_KEY: '',
      GOOGLE_API_KEY: '',
      GOOGLE_CLOUD_PROJECT: '',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    await new Promise<void>((ready, fail) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && ready())
      child.once('exit', (code) => fail(new Error(`${options.script} exited with ${code}`)))
    })
  } catch (e) {
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
  return {
    child,
    pid: child.pid!,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

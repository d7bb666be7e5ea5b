/**
 * The process guard on Node and Deno: a real server process gets a stray rejection and a stray
 * exception, logs both, and still answers.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort, SPAWNED_SERVER_ENV } from '../support/runtimes.ts'

const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM')
})

/** Spawns the server script and resolves once all `needles` were printed (or rejects on exit). */
async function startAndWaitFor(command: string, args: string[], port: number, needles: string[]): Promise<ChildProcess> {
  const child = spawn(command, args, {
    cwd: process.cwd(),
    env: { ...process.env, ...SPAWNED_SERVER_ENV, PORT: String(port), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (needles.every((n) => output.includes(n))) resolve()
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)))
  })
  return child
}

const NEEDLES = [
  'evalstream listening',
  'unhandled rejection (server keeps running)',
  'stray rejection from a test',
  'uncaught exception (server keeps running)',
  'stray exception from a test',
]

describe('process guard', () => {
  it('Node logs a stray rejection and exception and keeps serving', async () => {
    const port = await freePort()
    const child = await startAndWaitFor(process.execPath, ['test/http/guard/stray-node.ts'], port, NEEDLES)
    const health = await fetch(`http://127.0.0.1:${port}/healthz`)
    expect(health.status).toBe(200)
    expect(child.exitCode).toBeNull()
  })

  it('Deno logs a stray rejection and exception and keeps serving', async () => {
    const port = await freePort()
    const args = ['run', '--allow-net', '--allow-env', '--allow-read', 'test/http/guard/stray-deno.ts']
    const child = await startAndWaitFor('node_modules/.bin/deno', args, port, NEEDLES)
    const health = await fetch(`http://127.0.0.1:${port}/healthz`)
    expect(health.status).toBe(200)
    expect(child.exitCode).toBeNull()
  }, 120_000)
})

/**
 * The process guard on Node and Deno: a real server process gets a stray rejection and a stray
 * exception, logs both, and still answers. With its stdout and stderr closed (whatever read them
 * is gone), a log line and a stray exception cost nothing: it does not spin on the failed writes.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type ServerProcess, spawnServer } from '../../support/server-process.ts'

const servers: ServerProcess[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop()
})

const NEEDLES = [
  'evalstream listening',
  'unhandled rejection (server keeps running)',
  'stray rejection from a test',
  'uncaught exception (server keeps running)',
  'stray exception from a test',
]

describe('process guard', () => {
  it('Node logs a stray rejection and exception and keeps serving', async () => {
    const server = await spawnServer('node', { entry: 'test/runtimes/http/guard/stray-node.ts', waitFor: NEEDLES })
    servers.push(server)
    const health = await fetch(`${server.baseUrl}/healthz`)
    expect(health.status).toBe(200)
    expect(server.child.exitCode).toBeNull()
  })

  it('Node with its output closed still answers after logging and a stray exception', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalstream-guard-'))
    const marker = join(dir, 'alive')
    try {
      const server = await spawnServer('node', {
        entry: 'test/runtimes/http/guard/closed-output-node.ts',
        env: { EVALSTREAM_TEST_MARKER: marker },
      })
      servers.push(server)
      server.child.stdout!.destroy()
      server.child.stderr!.destroy()
      server.child.kill('SIGUSR2')
      // Every write to the closed streams fails; the loop must go on turning all the same.
      for (let i = 0; !existsSync(marker); i++) {
        if (i > 6_000) throw new Error('the server never wrote its marker: its event loop is stuck')
        await new Promise((r) => setTimeout(r, 20))
      }
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200)
      expect(server.child.exitCode).toBeNull()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('Deno logs a stray rejection and exception and keeps serving', async () => {
    const server = await spawnServer('deno', { entry: 'test/runtimes/http/guard/stray-deno.ts', waitFor: NEEDLES })
    servers.push(server)
    const health = await fetch(`${server.baseUrl}/healthz`)
    expect(health.status).toBe(200)
    expect(server.child.exitCode).toBeNull()
  }, 120_000)
})

/**
 * The process guard on Node and Deno: a real server process gets a stray rejection and a stray
 * exception, logs both, and still answers.
 */
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

  it('Deno logs a stray rejection and exception and keeps serving', async () => {
    const server = await spawnServer('deno', { entry: 'test/runtimes/http/guard/stray-deno.ts', waitFor: NEEDLES })
    servers.push(server)
    const health = await fetch(`${server.baseUrl}/healthz`)
    expect(health.status).toBe(200)
    expect(server.child.exitCode).toBeNull()
  }, 120_000)
})

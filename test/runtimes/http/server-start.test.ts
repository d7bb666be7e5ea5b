/**
 * The servers as processes: a PORT that is not a port, a port already in use and a bad
 * EVALSTREAM_CONFIG stop the start with a message and a non-zero exit (never a stray exception
 * and exit 0); every answer carries `X-Content-Type-Options: nosniff` (Node, Deno, Workers); and
 * TRACE, which fetch() cannot forward, is answered 405 in proxy mode instead of 502; the start
 * says where the dashboard is.
 * Covers: src/adapter/node/server.ts, src/adapter/deno/server.ts, src/adapter/listen-port.ts, src/http/no-sniff.ts, src/http/proxy/proxy.ts.
 */
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { createServer, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AgentStub, startAgentStub } from '../../support/agent-stub.ts'
import { freePort, SPAWNED_SERVER_ENV, startWorker } from '../../support/runtimes.ts'
import { type ServerProcess, spawnServer } from '../../support/server-process.ts'

const ENTRIES = {
  node: [process.execPath, ['src/adapter/node/server.ts']],
  deno: ['node_modules/.bin/deno', ['run', '--allow-net', '--allow-env', '--allow-read', 'src/adapter/deno/server.ts']],
} as const

/** Runs a server that is expected not to start: its exit code and everything it printed. */
function failedStart(runtime: 'node' | 'deno', env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const [command, args] = ENTRIES[runtime]
  const child = spawn(command, [...args], {
    cwd: process.cwd(),
    env: { ...process.env, ...SPAWNED_SERVER_ENV, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })))
}

/** A port something else listens on. */
async function busyPort(): Promise<{ port: number; server: Server }> {
  const port = await freePort()
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return { port, server }
}

/** One raw request (fetch() refuses TRACE): status and headers. */
function rawRequest(
  url: string,
  method: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe.each(['node', 'deno'] as const)('%s server start', (runtime) => {
  it('PORT=abc stops the start (exit 2) naming PORT', async () => {
    const { code, output } = await failedStart(runtime, { PORT: 'abc' })
    expect(code).toBe(2)
    expect(output).toContain("PORT must be a whole number from 0 to 65535, not 'abc'")
  }, 120_000)

  it('a port in use stops the start (exit 1) saying so, not "server keeps running"', async () => {
    const { port, server } = await busyPort()
    try {
      const { code, output } = await failedStart(runtime, { PORT: String(port) })
      expect(code).toBe(1)
      expect(output).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use`)
      expect(output).not.toContain('server keeps running')
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  }, 120_000)
})

describe('node server: a bad EVALSTREAM_CONFIG', () => {
  it('stops the start with exit 2', async () => {
    const { code, output } = await failedStart('node', { PORT: '0', EVALSTREAM_CONFIG: '{"criteria": "x"}' })
    expect(code).toBe(2)
    expect(output).toContain('EVALSTREAM_CONFIG is not an ADK EvalConfig: $.criteria')
  })
})

describe.each(['node', 'deno'] as const)('%s server answers', (runtime) => {
  let agent: AgentStub
  let server: ServerProcess
  beforeAll(async () => {
    agent = await startAgentStub()
    server = await spawnServer(runtime, { env: { AGENT_URL: agent.url }, waitFor: ['evalstream listening', 'dashboard: '] })
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await agent?.close()
  })

  it('the start says where the dashboard is', () => {
    expect(server.output()).toContain(`dashboard: http://127.0.0.1:${server.port}/ (open it in a browser)\n`)
  })

  it('carry X-Content-Type-Options: nosniff (health, 404, problem, proxied)', async () => {
    for (const path of ['/healthz', '/v1/sessions/none', '/list-apps']) {
      const res = await fetch(`${server.baseUrl}${path}`)
      await res.arrayBuffer()
      expect([path, res.headers.get('x-content-type-options')]).toEqual([path, 'nosniff'])
    }
  })

  it('TRACE to a proxied route is 405 with Allow, not a 502', async () => {
    const res = await rawRequest(`${server.baseUrl}/list-apps`, 'TRACE')
    expect(res.status).toBe(405)
    expect(res.headers.allow).toContain('GET')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(agent.requests.some((r) => r.method === 'TRACE')).toBe(false)
  })
})

describe('Workers answers', () => {
  it('carry X-Content-Type-Options: nosniff from the router and from a Durable Object', async () => {
    const worker = await startWorker({ EVALSTREAM_TOKENS: `acme:${'a'.repeat(32)}` })
    try {
      const auth = { authorization: `Bearer ${'a'.repeat(32)}`, 'content-type': 'application/json' }
      const answers = [
        await fetch(`${worker.baseUrl}/healthz`),
        await fetch(`${worker.baseUrl}/v1/sessions/none`),
        await fetch(`${worker.baseUrl}/v1/sessions/none`, { headers: auth }),
        await fetch(`${worker.baseUrl}/v1/sessions`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ eval_config: { criteria: {} } }),
        }),
      ]
      for (const res of answers) {
        await res.arrayBuffer()
        expect([res.status, res.headers.get('x-content-type-options')]).toEqual([res.status, 'nosniff'])
      }
      expect(answers.map((r) => r.status)).toEqual([200, 401, 404, 201])
    } finally {
      await worker.stop()
    }
  }, 120_000)
})

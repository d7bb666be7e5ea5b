/**
 * A stand-in for ADK's `adk api_server` on loopback: `/run_sse` replays a recorded /run_sse body
 * (the shared sample) and other routes answer small JSON, so proxy tests can check what passes
 * through. It records every request it receives.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { WEATHER_SSE } from '../http/fixtures.ts'

export type AgentRequest = { method: string; path: string; headers: Record<string, string>; body: string }

export type AgentStub = { url: string; requests: AgentRequest[]; close(): Promise<void> }

/** @example const agent = await startAgentStub(); agent.url // 'http://127.0.0.1:54321' */
export async function startAgentStub(sse = WEATHER_SSE): Promise<AgentStub> {
  const requests: AgentRequest[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers, body })
      if (req.url === '/run_sse' && req.method === 'POST') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
        // Frame by frame, like a live agent, so the proxy sees separate chunks: the next frame goes
        // out once the previous one has been handed to the socket (no timer).
        const frames = sse.split(/(?<=\n\n)/)
        let i = 0
        const next = () => {
          if (i >= frames.length || res.destroyed) return void res.end()
          res.write(frames[i++], () => setImmediate(next))
        }
        next()
        return
      }
      if (req.url === '/list-apps') return json(res, 200, ['weather_agent'])
      json(res, 200, { echo: { method: req.method, path: req.url, body } })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

function json(res: import('node:http').ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

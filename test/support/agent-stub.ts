/**
 * A stand-in for ADK's `adk api_server` on loopback: `/run_sse` replays a recorded /run_sse body
 * (the shared sample) and other routes answer small JSON, so proxy tests can check what passes
 * through. It records every request it receives.
 *
 * A request header `x-stub-scenario` makes /run_sse misbehave the way real agents do:
 * - `hang`: never answers (no status line, no headers);
 * - `stall`: sends the first STALL_AFTER frames, then nothing, keeping the connection open;
 * - `break`: sends the first BREAK_AFTER frames and half of the next, then drops the connection;
 * - `evalstream`: slips an `event: evalstream` frame of its own in after the first frame;
 * - `unterminated`: the last frame lacks its blank line (the body ends right after its data);
 * - `hop`: the response names `x-agent-hop` in `Connection`, and sends that header too.
 * Every request's headers are recorded, so tests see which of the client's headers arrived.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

import { WEATHER_SSE } from './weather-fixtures.ts'

export type AgentRequest = { method: string; path: string; headers: Record<string, string>; body: string }

export type AgentStub = { url: string; requests: AgentRequest[]; close(): Promise<void> }

export const SCENARIO_HEADER = 'x-stub-scenario'
export const STALL_AFTER = 2
export const BREAK_AFTER = 3
/** What `evalstream` sends as its own `event: evalstream` frame. */
export const FAKE_OURS = 'event: evalstream\ndata: {"seq":1,"type":"criterion.result","data":{"score":1,"forged":true}}\n\n'

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
      if (req.url === '/run_sse' && req.method === 'POST') return runSse(req, res, sse)
      if (req.url === '/list-apps') return json(res, 200, ['weather_agent'])
      if (req.url === '/hang') return // a route that never answers, for the connect timeout on other routes
      json(res, 200, { echo: { method: req.method, path: req.url, body } })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        // Hanging and stalled responses hold their sockets open: close them, or close() waits forever.
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function runSse(req: IncomingMessage, res: ServerResponse, sse: string): void {
  const scenario = req.headers[SCENARIO_HEADER]
  if (scenario === 'hang') return
  let frames = sse.split(/(?<=\n\n)/)
  const headers: Record<string, string> = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }
  if (scenario === 'hop') Object.assign(headers, { connection: 'keep-alive, x-agent-hop', 'x-agent-hop': 'hop-secret' })
  if (scenario === 'evalstream') frames = [frames[0]!, FAKE_OURS, ...frames.slice(1)]
  if (scenario === 'unterminated') frames[frames.length - 1] = frames.at(-1)!.replace(/\n\n$/, '')
  let end = () => void res.end()
  if (scenario === 'stall') {
    frames = frames.slice(0, STALL_AFTER)
    end = () => {}
  }
  if (scenario === 'break') {
    const torn = frames[BREAK_AFTER]!
    frames = [...frames.slice(0, BREAK_AFTER), torn.slice(0, torn.length >> 1)]
    // The connection drops in the middle of the chunked body: the client sees an error, not an end.
    end = () => void res.socket?.destroy()
  }
  res.writeHead(200, headers)
  // Frame by frame, like a live agent, so the proxy sees separate chunks: the next frame goes
  // out once the previous one has been handed to the socket (no timer).
  let i = 0
  const next = () => {
    if (res.destroyed) return
    if (i >= frames.length) return end()
    res.write(frames[i++], () => setImmediate(next))
  }
  next()
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

/**
 * A small ADK api_server stand-in on loopback for the runner's tests: sessions are created and
 * recorded; `/run_sse` replays the recorded weather run (a fresh invocation id per turn) unless the
 * user's message asks for trouble: `[500]` answers 500, `[hang]` never answers (until the client
 * gives up), `[agent-error]` streams one event then ADK's `{"error": ...}` frame. A user id of
 * `no-session` makes session creation fail with 500. `hold` keeps every /run_sse waiting until that
 * many are in flight, to show the parallel bound.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WEATHER_SSE } from './weather-fixtures.ts'

export type StubRequest = { path: string; body: any }
export type StubAgent = {
  url: string
  sessions: StubRequest[]
  turns: StubRequest[]
  maxInFlight: number
  close(): Promise<void>
}

export async function startStubAgent(options: { hold?: number } = {}): Promise<StubAgent> {
  let sessionCount = 0
  let turnCount = 0
  let inFlight = 0
  const waiting: Array<() => void> = []
  const stub: StubAgent = { url: '', sessions: [], turns: [], maxInFlight: 0, close: async () => {} }

  const server = createServer(async (req, res) => {
    const body = await readJson(req)
    const path = req.url ?? ''
    const session = /^\/apps\/([^/]+)\/users\/([^/]+)\/sessions$/.exec(path)
    if (req.method === 'POST' && session) {
      stub.sessions.push({ path, body })
      if (decodeURIComponent(session[2]!) === 'no-session') return json(res, 500, { error: 'session service down' })
      return json(res, 200, { id: `s-${++sessionCount}`, appName: session[1], userId: session[2], state: body.state ?? {}, events: [] })
    }
    if (req.method === 'POST' && path === '/run_sse') {
      stub.turns.push({ path, body })
      const text: string = (body.newMessage?.parts ?? []).map((p: { text?: string }) => p.text ?? '').join(' ')
      inFlight += 1
      stub.maxInFlight = Math.max(stub.maxInFlight, inFlight)
      res.on('close', () => (inFlight -= 1))
      if (options.hold && inFlight < options.hold) await new Promise<void>((resolve) => waiting.push(resolve))
      else for (const release of waiting.splice(0)) release()
      if (text.includes('[500]')) return json(res, 500, { error: 'model overloaded' })
      if (text.includes('[hang]')) return res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const invocation = `e-stub-${++turnCount}`
      const frames = WEATHER_SSE.replaceAll(/"invocationId":"[^"]*"/g, `"invocationId":"${invocation}"`).split(/(?<=\n\n)/)
      if (text.includes('[agent-error]')) return res.end(`${frames[0]}data: {"error": "tool crashed"}\n\n`)
      for (const frame of frames) res.write(frame)
      return res.end()
    }
    json(res, 404, { error: `no route ${req.method} ${path}` })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  stub.close = () =>
    new Promise((resolve) => {
      for (const release of waiting.splice(0)) release()
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return stub
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? JSON.parse(text) : {}
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

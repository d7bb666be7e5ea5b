/**
 * A loopback ADK api_server stand-in that keeps sessions, for the Eval tab routes: sessions are
 * created, `/run_sse` replays the recorded weather run (a fresh invocation id per turn) and appends
 * the user's message and the agent's events to the session, `GET .../sessions/{id}` answers the
 * session as ADK does (camelCase events), and any other route echoes what it got (to show that it
 * passed through evalstream to the agent).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WEATHER_SSE } from './weather-fixtures.ts'

export type SessionAgent = {
  url: string
  paths: string[]
  /** Turns whose message holds `[hold]` waiting for release(); resolves when `count` are waiting. */
  held(count: number): Promise<void>
  release(): void
  /** Adds a session with these events directly (as if a user had chatted in the UI). */
  seed(app: string, userId: string, id: string, events: unknown[]): void
  close(): Promise<void>
}

type Session = { id: string; appName: string; userId: string; state: Record<string, unknown>; events: unknown[] }

/** @example const agent = await startSessionAgent(); agent.url // 'http://127.0.0.1:4…' */
export async function startSessionAgent(): Promise<SessionAgent> {
  const sessions = new Map<string, Session>()
  const paths: string[] = []
  let count = 0
  const holding: Array<() => void> = []
  const watchers: Array<() => void> = []
  const key = (app: string, user: string, id: string) => `${app}/${user}/${id}`
  const server = createServer(async (req, res) => {
    const body = await readJson(req)
    const path = decodeURI(req.url ?? '')
    paths.push(`${req.method} ${path}`)
    const one = /^\/apps\/([^/]+)\/users\/([^/]+)\/sessions\/([^/]+)$/.exec(path)
    const many = /^\/apps\/([^/]+)\/users\/([^/]+)\/sessions$/.exec(path)
    if (req.method === 'POST' && many) {
      const session = { id: `s-${++count}`, appName: many[1]!, userId: many[2]!, state: body.state ?? {}, events: [] }
      sessions.set(key(many[1]!, many[2]!, session.id), session)
      return json(res, 200, session)
    }
    if (req.method === 'GET' && one) {
      const session = sessions.get(key(one[1]!, one[2]!, one[3]!))
      return session ? json(res, 200, session) : json(res, 404, { detail: 'Session not found' })
    }
    if (req.method === 'POST' && path === '/run_sse') {
      const session = sessions.get(key(body.appName, body.userId, body.sessionId))
      if (JSON.stringify(body.newMessage ?? {}).includes('[hold]')) {
        await new Promise<void>((resolve) => {
          holding.push(resolve)
          for (const w of watchers.splice(0)) w()
        })
      }
      const invocation = `e-${++count}`
      const frames = WEATHER_SSE.replaceAll(/"invocationId":"[^"]*"/g, `"invocationId":"${invocation}"`).split(/(?<=\n\n)/)
      session?.events.push({ invocationId: invocation, author: 'user', content: body.newMessage, timestamp: Date.now() })
      for (const frame of frames) {
        const data = /^data: (.*)$/m.exec(frame)?.[1]
        if (data) session?.events.push(JSON.parse(data))
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const frame of frames) res.write(frame)
      return res.end()
    }
    json(res, 200, { echo: `${req.method} ${path}` })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    async held(n) {
      while (holding.length < n) await new Promise<void>((resolve) => watchers.push(resolve))
    },
    release: () => void holding.splice(0).forEach((r) => r()),
    seed: (app, userId, id, events) => void sessions.set(key(app, userId, id), { id, appName: app, userId, state: {}, events }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  try {
    return text ? JSON.parse(text) : {}
  } catch {
    return {}
  }
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

/**
 * A loopback server speaking OpenAI's chat-completions protocol (POST <base>/chat/completions), for
 * driving the real OpenAI-compatible judge client over 127.0.0.1. Scripted by a handler, recording
 * every request. Test-only.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export type ChatRequest = { path: string; headers: Record<string, string | string[] | undefined>; body: any }
export type ChatReply =
  | { choices: string[]; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { status: number; body: unknown; headers?: Record<string, string> }

export type ChatStub = {
  url: string
  requests: ChatRequest[]
  handle(handler: (request: ChatRequest) => ChatReply): void
  close(): Promise<void>
}

export async function startChatStub(): Promise<ChatStub> {
  const requests: ChatRequest[] = []
  let handler: (request: ChatRequest) => ChatReply = () => ({ status: 500, body: { error: { message: 'no handler' } } })
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      let body: unknown
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        body = undefined
      }
      const request = { path: req.url ?? '', headers: req.headers, body }
      requests.push(request)
      const reply = handler(request)
      if ('choices' in reply) {
        const choices = reply.choices.map((content, index) => ({ index, message: { role: 'assistant', content }, finish_reason: 'stop' }))
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ id: 'c', object: 'chat.completion', choices, ...(reply.usage ? { usage: reply.usage } : {}) }))
      } else {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
        res.end(JSON.stringify(reply.body))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle: (h) => void (handler = h),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

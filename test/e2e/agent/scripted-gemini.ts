/**
 * A minimal Gemini-protocol server that plays the weather script (./script.ts), so the e2e agent
 * runs the stock ADK Gemini model and the real @google/genai client with no network access.
 *
 * It speaks the two REST routes the SDK uses: `POST /v1beta/models/{model}:generateContent` (one
 * JSON response) and `:streamGenerateContent?alt=sse` (one `data:` frame per chunk; the final
 * text is split into chunks so ADK emits `partial: true` events before the aggregated one).
 * Like the real API it sends no function-call ids, so ADK assigns its own `adk-<uuid>` ids.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { nextModelTurn, type ModelTurn, type ScriptContent } from './script.ts'

/** Token counts are fixed (and equal to the recorded samples) so events are fully deterministic. */
const USAGE = { promptTokenCount: 50, candidatesTokenCount: 7, totalTokenCount: 57 }
const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/
const MAX_BODY_BYTES = 10_000_000

/** One model call the stub answered, kept so tests can assert what ADK sent. */
export type StubCall = { model: string; stream: boolean; apiKey: string | null; turn: ModelTurn }

/** A running stub. `url` is what GOOGLE_GEMINI_BASE_URL must be set to. */
export type ScriptedGemini = { url: string; calls: StubCall[]; close(): Promise<void> }

/**
 * Options: streamed text chunks go out one at a time, each once the previous one reached the socket;
 * `chunkDelayMs` (default 0) adds a pause between them, to simulate a slow model.
 */
export type ScriptedGeminiOptions = { chunkDelayMs?: number }

/**
 * Starts the stub on a free loopback port.
 * @example
 * const gemini = await startScriptedGemini()
 * // spawn the agent with GOOGLE_GEMINI_BASE_URL=gemini.url ... then:
 * await gemini.close()
 */
export async function startScriptedGemini(opts: ScriptedGeminiOptions = {}): Promise<ScriptedGemini> {
  const chunkDelayMs = opts.chunkDelayMs ?? 0
  const calls: StubCall[] = []
  const server = createServer((req, res) => {
    handle(req, res, calls, chunkDelayMs).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, String(err))
      else res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, calls: StubCall[], delayMs: number): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://stub')
  const match = req.method === 'POST' ? ROUTE.exec(url.pathname) : null
  if (!match) return sendError(res, 404, `scripted gemini stub: no route for ${req.method} ${url.pathname}`)
  const body = JSON.parse(await readBody(req)) as { contents?: ScriptContent[] }
  const stream = match[2] === 'streamGenerateContent'
  const turn = nextModelTurn(body.contents ?? [])
  const apiKey = req.headers['x-goog-api-key']
  calls.push({ model: match[1] ?? '', stream, apiKey: typeof apiKey === 'string' ? apiKey : null, turn })

  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(response(turnParts(turn), true)))
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  if (turn.kind === 'call') {
    res.end(frame(response(turnParts(turn), true)))
    return
  }
  for (const [i, chunk] of turn.chunks.entries()) {
    if (i > 0 && delayMs > 0) await sleep(delayMs)
    await new Promise<void>((resolve) => res.write(frame(response([{ text: chunk }], i === turn.chunks.length - 1)), () => resolve()))
  }
  res.end()
}

function turnParts(turn: ModelTurn): object[] {
  if (turn.kind === 'call') return [{ functionCall: { name: turn.name, args: turn.args } }]
  return [{ text: turn.chunks.join('') }]
}

function response(parts: object[], last: boolean): object {
  const candidate = { content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }
  return { candidates: [candidate], usageMetadata: USAGE, modelVersion: 'scripted-weather-stub' }
}

function frame(payload: object): string {
  return `data: ${JSON.stringify(payload)}\r\n\r\n`
}

function sendError(res: ServerResponse, code: number, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ error: { code, message, status: code === 404 ? 'NOT_FOUND' : 'INTERNAL' } }))
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`)
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

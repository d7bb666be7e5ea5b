/**
 * A local server speaking the REST protocol of Gemini (generateContent, on the Gemini API and the
 * Vertex paths) and of Vertex AI's evaluateInstances, so tests and benchmarks drive the REAL
 * @google/genai SDK over loopback. Scriptable per test (a queue of replies or a handler) and
 * recording every request. Test-only: lives under test/, never imported by src/.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type StubUsage = { prompt?: number; output?: number }
/**
 * `delayMs` simulates a slow model; `after` holds the reply until the test resolves the promise
 * (deterministic, for tests about ordering: no race against a timer).
 */
type Timing = { delayMs?: number; after?: Promise<unknown> }
export type StubReply =
  /** A generateContent answer: one candidate per text (null = a candidate without text). */
  | ({ candidates: Array<string | null>; usage?: StubUsage; finishReason?: string } & Timing)
  /** An error body the way Google sends them: `{ error: { code, message, status } }`, with optional headers (e.g. Retry-After). */
  | ({ error: { code: number; message: string; status: string }; headers?: Record<string, string> } & Timing)
  /** Any body, e.g. malformed JSON. */
  | ({ raw: string; status?: number; contentType?: string } & Timing)
  /** An evaluateInstances answer with `metricResults[0].score` (null leaves the score out). */
  | ({ safetyScore: number | null } & Timing)
  /** Never answer: the client has to time out or abort. */
  | { hang: true }

export type RecordedRequest = {
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  /** Parsed JSON body (undefined when it was not JSON). */
  body: any
  /** The model named in a generateContent path. */
  model?: string
  kind: 'generateContent' | 'evaluateInstances' | 'other'
}

export type StubHandler = (request: RecordedRequest) => StubReply | Promise<StubReply>

export type GeminiStub = {
  /** Base URL to pass as httpOptions.baseUrl / GEMINI_BASE_URL. */
  url: string
  requests: RecordedRequest[]
  enqueue(...replies: StubReply[]): void
  /** Used when the queue is empty. */
  handle(handler: StubHandler | undefined): void
  /** Resolves once `count` requests have arrived in total (at once when they already have). */
  waitForRequests(count: number): Promise<void>
  close(): Promise<void>
}

/** A Google-style error reply, optionally with response headers such as Retry-After. */
export function apiError(code: number, message: string, headers?: Record<string, string>): StubReply {
  const status = code === 429 ? 'RESOURCE_EXHAUSTED' : code === 400 ? 'INVALID_ARGUMENT' : code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'
  return { error: { code, message, status }, ...(headers ? { headers } : {}) }
}

/** Rough token count (4 characters a token), the same for every request shape, for the benchmark. */
function tokens(text: string): number {
  return Math.ceil(text.length / 4)
}

function promptChars(body: any): string {
  const texts: string[] = []
  const collect = (content: any) => {
    for (const part of content?.parts ?? []) if (typeof part?.text === 'string') texts.push(part.text)
  }
  for (const content of body?.contents ?? []) collect(content)
  collect(body?.systemInstruction ?? body?.system_instruction)
  return texts.join('')
}

function classify(path: string): Pick<RecordedRequest, 'kind' | 'model'> {
  const gen = /\/models\/([^/:]+):generateContent$/.exec(path)
  if (gen) return { kind: 'generateContent', model: decodeURIComponent(gen[1] as string) }
  if (path.endsWith(':evaluateInstances')) return { kind: 'evaluateInstances' }
  return { kind: 'other' }
}

function send(res: ServerResponse, status: number, body: string, contentType = 'application/json', headers: Record<string, string> = {}) {
  res.writeHead(status, { ...headers, 'content-type': contentType })
  res.end(body)
}

function respond(res: ServerResponse, request: RecordedRequest, reply: StubReply) {
  if ('hang' in reply) return
  if ('error' in reply) return send(res, reply.error.code, JSON.stringify({ error: reply.error }), 'application/json', reply.headers)
  if ('raw' in reply) return send(res, reply.status ?? 200, reply.raw, reply.contentType)
  if ('safetyScore' in reply) {
    const result = reply.safetyScore === null ? {} : { score: reply.safetyScore }
    return send(res, 200, JSON.stringify({ metricResults: [result] }))
  }
  const candidates = reply.candidates.map((text, index) => ({
    index,
    content: { role: 'model', parts: text === null ? [] : [{ text }] },
    finishReason: reply.finishReason ?? 'STOP',
  }))
  const output = reply.candidates.reduce((n, t) => n + (t === null ? 0 : tokens(t)), 0)
  const usageMetadata = {
    promptTokenCount: reply.usage?.prompt ?? tokens(promptChars(request.body)),
    candidatesTokenCount: reply.usage?.output ?? output,
  }
  send(res, 200, JSON.stringify({ candidates, usageMetadata, modelVersion: request.model ?? 'stub' }))
}

/**
 * @example
 * const stub = await startGeminiStub()
 * stub.enqueue({ candidates: ['{"is_the_agent_response_valid": "valid"}'] })
 * const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: stub.url } })
 */
export async function startGeminiStub(): Promise<GeminiStub> {
  const queue: StubReply[] = []
  const requests: RecordedRequest[] = []
  let handler: StubHandler | undefined
  const waiters: Array<{ count: number; resolve(): void }> = []
  const wakeWaiters = () => {
    for (const w of [...waiters]) if (requests.length >= w.count) (waiters.splice(waiters.indexOf(w), 1), w.resolve())
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    let body: unknown
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {
      body = undefined
    }
    const path = (req.url ?? '/').split('?')[0] as string
    const request: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, ...classify(path) }
    requests.push(request)
    wakeWaiters()
    const reply = queue.shift() ?? (handler ? await handler(request) : apiError(500, 'stub: no reply scripted'))
    if ('after' in reply && reply.after) await reply.after
    const delay = 'delayMs' in reply ? (reply.delayMs ?? 0) : 0
    if (delay > 0) await new Promise((r) => setTimeout(r, delay))
    if (!res.destroyed) respond(res, request, reply)
  }

  const server = createServer((req, res) => {
    onRequest(req, res).catch((e) => send(res, 500, JSON.stringify({ error: { code: 500, message: String(e), status: 'INTERNAL' } })))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    handle: (h) => void (handler = h),
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => void waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

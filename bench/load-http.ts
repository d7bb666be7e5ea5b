/**
 * The load bench's HTTP client: node:http on keep-alive connections, not `fetch`.
 *
 * The client runs on the same cores as the server it measures. With `fetch` (undici, web streams,
 * a TextDecoder per stream) it took 172 µs of CPU per event posted, three times what the replay
 * baseline's server took, so the bench measured its own client as much as the server. node:http
 * parses responses in llhttp (native) and hands the body over as Node buffers.
 */
import { Agent, request } from 'node:http'

/** One connection per in-flight request, kept open for the next (as a browser or SDK client does). */
const agent = new Agent({ keepAlive: true, maxSockets: Infinity, keepAliveMsecs: 60_000 })

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; text: string }

/**
 * Ends every request in flight, each with an error, and every connection: how a run is stopped.
 * (No AbortSignal per request: listening on one took 4% of the client's CPU.)
 */
export function abortAll(): void {
  agent.destroy()
}

/** Sends one request and reads its whole answer as text. */
export function call(
  base: string,
  method: string,
  path: string,
  options: { body?: string; type?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {}
    if (options.body !== undefined) {
      headers['content-type'] = options.type ?? 'application/json'
      headers['content-length'] = Buffer.byteLength(options.body)
    }
    const req = request(`${base}${path}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

/**
 * Opens a streaming GET; resolves with its status once the headers are in, and the body as an
 * async iterable of text chunks (UTF-8 decoded across chunk edges).
 */
export function openStream(base: string, path: string): Promise<{ status: number; body: AsyncIterable<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: 'GET', agent }, (res) => {
      res.setEncoding('utf8')
      resolve({ status: res.statusCode ?? 0, body: res as AsyncIterable<string> })
    })
    req.on('error', reject)
    req.end()
  })
}

/**
 * A streaming POST over node:http, so a test can keep sending the body after the response has
 * started (fetch's duplex: 'half' promises no such thing).
 */
import { request } from 'node:http'
import { Readable } from 'node:stream'

/** @example const up = duplexPost(url, headers); up.write('data: {}\n\n'); const res = await up.response */
export function duplexPost(url: string, headers: Record<string, string>) {
  const req = request(url, { method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } })
  const response = new Promise<Response>((resolve, reject) => {
    req.on('response', (res) => {
      const body = Readable.toWeb(res) as ReadableStream<Uint8Array>
      resolve(new Response(body, { status: res.statusCode, headers: res.headers as Record<string, string> }))
    })
    req.on('error', reject)
  })
  req.flushHeaders()
  return {
    write: (text: string) => void req.write(text),
    end: () => void req.end(),
    response,
  }
}

/** GET with the path sent exactly as given (fetch would resolve `//host/x` to another host). */
export function rawGet(baseUrl: string, path: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET' }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve(body))
    })
    req.on('error', reject)
    req.end()
  })
}

/**
 * Forwarding to the agent (proxy mode): requests go to AGENT_URL's origin and nowhere else.
 */
import type { Context } from 'hono'
import { consumedHeaders } from './auth.ts'
import { problem } from './problem.ts'

/** Headers that describe one hop, not the message; never forwarded either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  // fetch already decoded the body, so the encoding no longer describes it.
  'content-encoding',
])

/**
 * The agent URL for a request path. The path is set as a pathname, never resolved as a URL, so
 * `//evil.example/x` stays a path on the agent's origin.
 * @example agentTarget('http://agent:8000', '/run_sse', '').href // 'http://agent:8000/run_sse'
 */
export function agentTarget(agentUrl: string, path: string, search: string): URL {
  const base = new URL(agentUrl)
  const url = new URL(base.origin)
  url.pathname = base.pathname.replace(/\/+$/, '') + path
  url.search = search
  if (url.origin !== base.origin) throw new Error(`refusing to forward outside ${base.origin}`)
  return url
}

export function forwardHeaders(headers: Headers, drop: readonly string[] = []): Headers {
  const out = new Headers()
  headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && !drop.includes(name) && !name.startsWith('x-evalstream-')) out.set(name, value)
  })
  return out
}

export type Upstream = { ok: true; response: Response } | { ok: false; response: Response }

/**
 * Sends the request (with `body` in place of the original, when given) to the agent.
 * @example const up = await callAgent(c, 'http://agent:8000', fetch)
 */
export async function callAgent(c: Context, agentUrl: string, fetcher: typeof fetch, body?: string): Promise<Upstream> {
  const req = c.req.raw
  const incoming = new URL(req.url)
  const target = agentTarget(agentUrl, incoming.pathname, incoming.search)
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  try {
    const response = await fetcher(target, {
      method: req.method,
      headers: forwardHeaders(req.headers, consumedHeaders(c)),
      // ADK's routes take small JSON bodies; buffering avoids streaming-upload quirks across runtimes.
      body: hasBody ? (body ?? (await req.arrayBuffer())) : undefined,
      redirect: 'manual',
      signal: req.signal,
    })
    return { ok: true, response }
  } catch (e) {
    const detail = `could not reach the agent at ${target.origin}: ${(e as Error).message}`
    return { ok: false, response: problem(c, 502, 'Agent unreachable', detail) }
  }
}

/** The agent's response as ours: same status and body, hop headers dropped. */
export function relay(response: Response, extra: Record<string, string> = {}): Response {
  const headers = forwardHeaders(response.headers)
  for (const [k, v] of Object.entries(extra)) headers.set(k, v)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

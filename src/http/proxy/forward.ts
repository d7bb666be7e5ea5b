/**
 * Forwarding to the agent (proxy mode): requests go to AGENT_URL's origin and nowhere else.
 * Request bodies stream through; the agent gets EVALSTREAM_AGENT_CONNECT_TIMEOUT_MS to answer,
 * and its response body EVALSTREAM_AGENT_IDLE_TIMEOUT_MS between chunks (agent-body.ts).
 */
import type { Context } from 'hono'
import { consumedHeaders } from '../auth.ts'
import { DEFAULT_PROXY_SETTINGS, type ProxySettings } from './settings.ts'
import { agentBody, type AgentLink, causeOf } from './agent-body.ts'
import { problem } from '../problem.ts'
import { isEventStream, renamedAgentBody } from './agent-sse.ts'

/** How relayed bodies are filtered: event streams always; with `always`, whatever the Content-Type says. */
export type FrameFilter = { maxEventBytes: number; always?: boolean }

/** Headers that describe one hop, not the message (RFC 9110 §7.6.1); never forwarded either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
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

/**
 * The end-to-end headers: the fixed hop-by-hop list, every header the `Connection` header names
 * (RFC 9110 §7.6.1), `drop` and our own `x-evalstream-*` are left out.
 * @example forwardHeaders(new Headers({ connection: 'x-hop', 'x-hop': '1' })).has('x-hop') // false
 */
export function forwardHeaders(headers: Headers, drop: readonly string[] = []): Headers {
  const named = new Set(
    (headers.get('connection') ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  )
  const out = new Headers()
  headers.forEach((value, name) => {
    if (HOP_BY_HOP.has(name) || named.has(name) || drop.includes(name) || name.startsWith('x-evalstream-')) return
    out.set(name, value)
  })
  return out
}

export type Upstream = { ok: true; response: Response; link: AgentLink } | { ok: false; response: Response }

export type AgentCall = {
  agentUrl: string
  fetch: typeof fetch
  settings?: ProxySettings
  /** The agent path to call instead of the request's (a /run_sse spelling goes to RUN_SSE_PATH). */
  path?: string
  /** The query string to send instead of the request's (the proxy strips its own parameters). */
  search?: string
}

/**
 * Sends the request to the agent: `body` in place of the original when given (the proxy had to
 * read it), else the original body streamed through. The agent must answer within the connect
 * timeout (504 problem+json); an agent that cannot be reached is a 502 problem+json with the cause.
 * @example const up = await callAgent(c, { agentUrl: 'http://agent:8000', fetch })
 */
export async function callAgent(c: Context, call: AgentCall, body?: string): Promise<Upstream> {
  const settings = call.settings ?? DEFAULT_PROXY_SETTINGS
  const req = c.req.raw
  const incoming = new URL(req.url)
  const target = agentTarget(call.agentUrl, call.path ?? incoming.pathname, call.search ?? incoming.search)
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  // One controller for this call: the connect timeout, the idle timeout and the client leaving all end it.
  const ours = new AbortController()
  const signal = AbortSignal.any([req.signal, ours.signal])
  const link: AgentLink = {
    origin: target.origin,
    abort: (reason) => ours.abort(reason),
    clientGone: () => req.signal.aborted,
  }
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    ours.abort(new Error('connect timeout'))
  }, settings.connectTimeoutMs)
  try {
    const init: RequestInit & { duplex?: 'half' } = {
      method: req.method,
      headers: forwardHeaders(req.headers, consumedHeaders(c)),
      body: hasBody ? (body ?? req.body) : undefined,
      redirect: 'manual',
      signal,
    }
    // A streamed request body needs half duplex (Node's fetch insists); a string does not mind.
    if (hasBody && body === undefined && req.body) init.duplex = 'half'
    // Called unbound: workerd's fetch refuses any other `this` ("Illegal invocation").
    const fetcher = call.fetch
    const response = await fetcher(target, init)
    return { ok: true, response, link }
  } catch (e) {
    if (timedOut) {
      const detail =
        `the agent at ${target.origin} sent no response to ${req.method} ${incoming.pathname} within ${settings.connectTimeoutMs} ms (EVALSTREAM_AGENT_CONNECT_TIMEOUT_MS)`
      return { ok: false, response: problem(c, 'agent_timeout', 'Agent timed out', detail) }
    }
    const detail = `could not reach the agent at ${target.origin}: ${causeOf(e)}`
    return { ok: false, response: problem(c, 'agent_unreachable', 'Agent unreachable', detail) }
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The agent's response as ours: same status and body, hop headers dropped. With `link`, the body
 * is cut (an error to the client, as the agent failing would be) once it idles past the timeout.
 * With `frames`, an event-stream body (any status, any Content-Type spelling) has its agent
 * `evalstream` frames renamed (agent-sse.ts); with `frames.always`, any body does.
 * @example return relay(upstream.response, {}, upstream.link)
 */
export function relay(
  response: Response,
  extra: Record<string, string> = {},
  link?: AgentLink,
  settings?: ProxySettings,
  frames?: FrameFilter,
): Response {
  const headers = forwardHeaders(response.headers)
  for (const [k, v] of Object.entries(extra)) headers.set(k, v)
  const idleTimeoutMs = (settings ?? DEFAULT_PROXY_SETTINGS).idleTimeoutMs
  let body = link && response.body ? agentBody(response.body, { link, idleTimeoutMs, onBreak: 'error' }).stream : response.body
  if (body && frames && (frames.always || isEventStream(response.headers.get('content-type')))) {
    body = renamedAgentBody(body, frames.maxEventBytes)
  }
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}

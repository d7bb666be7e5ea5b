/**
 * Proxy mode: evalstream sits between an ADK client (e.g. the dev UI) and the agent's api_server.
 * `/run_sse` is forwarded to AGENT_URL; every agent frame passes through unchanged and, after each,
 * the results it caused follow as `event: evalstream` frames, which ADK clients ignore. Each ADK
 * session is an evalstream session of the same id (deployment default config), or, with header
 * `X-Evalstream-Session`, the named existing session with its case and config. Any other route
 * is forwarded as is.
 */
import type { Context } from 'hono'
import type { ResultEvent } from '../engine/types.ts'
import { createEventDecoder, decodeFrameValue, isIngestIssue } from '../ingest/index.ts'
import type { AppDeps } from '../host/deps.ts'
import { proxySessionId, tenantField, tenantOf, visibleTo } from './auth.ts'
import { callAgent, forwardHeaders, relay } from './forward.ts'
import { problem } from './problem.ts'
import type { HostedSession } from '../host/session.ts'
import { sseFrameSplitter } from './sse-frames.ts'

export const SESSION_HEADER = 'x-evalstream-session'

/** @example app.post('/run_sse', (c) => proxyRunSse(c, deps)) */
export async function proxyRunSse(c: Context, deps: AppDeps): Promise<Response> {
  if (!deps.agentUrl) return proxyOff(c)
  const text = await c.req.text()
  const request = parseObject(text)
  const named = c.req.header(SESSION_HEADER)
  const adkSessionId = str(request?.sessionId) ?? str(request?.session_id)
  // With tenants, an ADK session scores into `<tenant>:<adk id>` (auth.ts proxySessionId).
  const sessionId = named ?? (adkSessionId === undefined ? undefined : proxySessionId(tenantOf(c), adkSessionId))
  // Without a session id there is nothing to score against: the agent will answer the error itself.
  if (!sessionId) return forwardAll(c, deps, text)

  const found = await findOrCreate(deps, sessionId, named !== undefined, tenantOf(c))
  if (!found.ok) return problem(c, found.status, found.title, found.detail)
  const session = found.session
  if (session.ended) return forwardAll(c, deps, text, { [SESSION_HEADER]: session.id, 'x-evalstream-note': 'session ended; not scored' })

  const upstream = await callAgent(c, deps.agentUrl, deps.fetch ?? fetch, text)
  if (!upstream.ok) return upstream.response
  const response = upstream.response
  const isSse = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
  if (!response.ok || !isSse || !response.body) return relay(response, { [SESSION_HEADER]: session.id })
  const body = interleave(response.body, session, request?.newMessage ?? request?.new_message)
  const headers = forwardHeaders(response.headers)
  headers.set(SESSION_HEADER, session.id)
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}

/** Every other ADK api_server route, forwarded unchanged. */
export async function forwardAll(c: Context, deps: AppDeps, body?: string, extra?: Record<string, string>) {
  if (!deps.agentUrl) return proxyOff(c)
  const upstream = await callAgent(c, deps.agentUrl, deps.fetch ?? fetch, body)
  return upstream.ok ? relay(upstream.response, extra) : upstream.response
}

function proxyOff(c: Context): Response {
  const path = new URL(c.req.url).pathname
  return problem(c, 404, 'Not found', `no route ${c.req.method} ${path}; set AGENT_URL to proxy ADK routes to an agent`)
}

async function findOrCreate(deps: AppDeps, id: string, mustExist: boolean, tenant: string | undefined) {
  // Another tenant's session is treated as missing: never scored into, never revealed.
  const notFound = { ok: false as const, status: 404, title: 'Session not found', detail: `no session with id '${id}'` }
  const existing = await deps.store.get(id, deps.createEngine)
  if (existing) return visibleTo(existing, tenant) ? { ok: true as const, session: existing } : notFound
  if (mustExist)
    return { ok: false as const, status: 404, title: 'Session not found', detail: `${SESSION_HEADER} names '${id}', which does not exist` }
  const created = await deps.store.create({ session_id: id, eval_config: deps.defaultConfig, ...tenantField(tenant) }, deps.createEngine)
  if (created.ok || created.status !== 409) return created
  // Another conversation created it a moment ago.
  const raced = await deps.store.get(id, deps.createEngine)
  return raced ? (visibleTo(raced, tenant) ? { ok: true as const, session: raced } : notFound) : created
}

/**
 * The agent's stream with result frames after each agent frame. ADK's /run_sse events never
 * include the user's message, so it is scored from the request's newMessage, in the invocation the
 * first agent event names. The agent closing its stream completes the invocation.
 */
function interleave(upstream: ReadableStream<Uint8Array>, session: HostedSession, newMessage: unknown) {
  const encoder = new TextEncoder()
  const utf8 = new TextDecoder()
  const split = sseFrameSplitter()
  const queue: ResultEvent[] = []
  const unsubscribe = session.log.subscribe((event) => queue.push(event))
  let userSent = newMessage === undefined
  const decoder = createEventDecoder('sse', {
    onEvent(item) {
      if (!userSent && item.event.invocation_id && item.event.author !== 'user') {
        const user = decodeFrameValue({ invocationId: item.event.invocation_id, author: 'user', content: newMessage }, item.index)
        if (!isIngestIssue(user)) session.push(user)
      }
      userSent = true
      session.push(item)
    },
    onIssue: (issue) => session.reject({ index: issue.index, message: issue.message, ...(issue.path ? { path: issue.path } : {}) }),
  })
  const reader = upstream.getReader()
  let finished = false
  const finish = () => {
    if (finished) return
    finished = true
    decoder.end()
    session.completeInvocation()
    unsubscribe()
  }
  const flush = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    for (const event of queue.splice(0)) {
      const data = JSON.stringify({ seq: event.seq, type: event.type, data: event.data })
      controller.enqueue(encoder.encode(`event: evalstream\ndata: ${data}\n\n`))
    }
  }
  const pass = (controller: ReadableStreamDefaultController<Uint8Array>, frames: string[]) => {
    for (const frame of frames) {
      controller.enqueue(encoder.encode(frame))
      decoder.push(frame)
      flush(controller)
    }
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>
      try {
        chunk = await reader.read()
      } catch (e) {
        // The agent broke off: score what arrived, then pass the failure on, as a direct call would.
        finish()
        flush(controller)
        controller.error(e)
        return
      }
      const { done, value } = chunk
      if (!done) return pass(controller, split.push(utf8.decode(value, { stream: true })))
      pass(controller, split.push(utf8.decode()).concat(split.end()))
      finish()
      flush(controller)
      controller.close()
    },
    async cancel(reason) {
      // The client left: stop the agent call too, and score what the invocation got so far.
      await reader.cancel(reason).catch(() => {})
      finish()
    },
  })
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

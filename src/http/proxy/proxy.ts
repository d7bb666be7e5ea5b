/**
 * Proxy mode: evalstream sits between an ADK client (e.g. the dev UI) and the agent's api_server.
 * `/run_sse` (and every spelling an ADK server routes there: agent-sse.ts `isRunSsePath`) is
 * forwarded to AGENT_URL's `/run_sse` and scored as it streams; every agent frame passes through
 * (an agent frame named `evalstream` renamed `agent-evalstream`, on every answer to /run_sse,
 * scored or not). By default the client gets only the agent's frames, since the stock ADK web UI
 * shows every `data:` line as a row whatever the event name; the results are on
 * `/v1/sessions/{id}/results` (the id in the `X-Evalstream-Session` response header). A client
 * that asks (results-mode.ts: `X-Evalstream-Results: inline` or `?evalstream_results=inline`)
 * also gets, after each agent frame, the results it caused as `event: evalstream` frames, and the
 * stream stays open after the agent's last frame for the invocation's judged verdicts, at most
 * EVALSTREAM_PROXY_VERDICT_WAIT_MS. Each ADK session is an evalstream session of the same id
 * (deployment default config), or, with header `X-Evalstream-Session`, the named existing session
 * with its case and config. Any other route is forwarded as is, body streamed.
 *
 *   agent body -> agentBody (idle timeout) -> TextDecoderStream -> sseFrameStream (whole frames)
 *     -> interleaveResults (score; append ours when inline) -> TextEncoderStream -> client
 */
import { type Failure, failure } from '../../engine/problem.ts'
import type { Context } from 'hono'
import type { AppDeps } from '../deps.ts'
import { isRecord } from '../../adk/json.ts'
import { scanJsonBounds } from '../../adk/json-scan.ts'
import { DEFAULT_LIMITS, limitMember, limitName } from '../../ingest/index.ts'
import { proxySessionId, tenantField, tenantOf, visibleTo } from '../auth.ts'
import { DEFAULT_PROXY_SETTINGS } from './settings.ts'
import type { HostedSession } from '../../session/session.ts'
import { agentBody } from './agent-body.ts'
import { SESSION_ID_PATTERN } from '../create-request.ts'
import { otlpReservedIdProblem } from '../../otlp/session-id.ts'
import { callAgent, forwardHeaders, relay } from './forward.ts'
import { problem } from '../problem.ts'
import { interleaveResults } from './interleave.ts'
import { readTextLimited } from '../read-body.ts'
import { SSE_FRAME_SLACK, sseFrameStream } from '../sse-frames.ts'
import { isEventStream, RUN_SSE_PATH } from './agent-sse.ts'
import { RESULTS_HEADER, RESULTS_HEADER_NAME, RESULTS_MODES, RESULTS_PARAM, resultsModeOf, withoutResultsParam } from './results-mode.ts'

export const SESSION_HEADER = 'x-evalstream-session'
export const NOTE_HEADER = 'x-evalstream-note'

/** @example app.post('/run_sse', (c) => proxyRunSse(c, deps)) */
export async function proxyRunSse(c: Context, deps: AppDeps): Promise<Response> {
  if (!deps.agentUrl) return proxyOff(c)
  const search = new URL(c.req.url).search
  const mode = resultsModeOf(c.req.header(RESULTS_HEADER), search)
  if (!mode.ok) {
    return problem(c, 'invalid_request', 'Invalid results mode', mode.detail, {
      header: RESULTS_HEADER_NAME,
      parameter: RESULTS_PARAM,
      accepted: RESULTS_MODES,
    })
  }
  const settings = deps.proxy ?? DEFAULT_PROXY_SETTINGS
  // The session id is in the body, so this one body is read, up to a limit; every other route streams.
  const limits = deps.limits ?? DEFAULT_LIMITS
  const read = await readTextLimited(c.req.raw, limits.maxRequestBytes)
  if (!read.ok && read.reason === 'broken') return problem(c, 'broken_body', 'Body could not be read', read.error)
  if (!read.ok) {
    const detail = `the body is more than ${limits.maxRequestBytes} bytes (${limitName('maxRequestBytes', limits)})`
    return problem(c, 'request_too_large', 'Request body too large', detail, { limit: limitMember('maxRequestBytes', limits) })
  }
  const text = read.text
  const request = parseObject(text)
  const named = c.req.header(SESSION_HEADER)
  const adkSessionId = str(request?.sessionId) ?? str(request?.session_id)
  // With tenants, an ADK session scores into `<tenant>:<adk id>` (auth.ts proxySessionId).
  const sessionId = named ?? (adkSessionId === undefined ? undefined : proxySessionId(tenantOf(c), adkSessionId))
  // Without a session id there is nothing to score against: the agent will answer the error itself.
  if (sessionId === undefined) return forwardRunSse(c, deps, text)
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    // Asked for by name: say what is wrong. An ADK id we cannot host: the agent still answers, unscored.
    if (named !== undefined) {
      return problem(c, 'invalid_id', 'Invalid session id', `${SESSION_HEADER} must be 1-200 characters of A-Z a-z 0-9 . _ ~ : -`)
    }
    return forwardRunSse(c, deps, text, { [NOTE_HEADER]: 'the ADK session id is not a valid evalstream session id; not scored' })
  }
  // Sessions named otlp-... are the OTLP monitor's: an agent's own frames never score into one.
  const monitors = otlpReservedIdProblem(sessionId)
  if (monitors !== undefined) {
    if (named !== undefined) return problem(c, 'invalid_id', 'Invalid session id', `${SESSION_HEADER}: ${monitors}`)
    return forwardRunSse(c, deps, text, { [NOTE_HEADER]: `the ADK session id is in the OTLP monitor's namespace; not scored` })
  }

  // The ADK app the run is for names a session it creates (the list and stats filter by app); one
  // outside the session id's characters and length is left out rather than stored.
  const appName = str(request?.appName) ?? str(request?.app_name)
  const app = appName !== undefined && SESSION_ID_PATTERN.test(appName) ? appName : undefined
  const found = await findOrCreate(deps, { id: sessionId, mustExist: named !== undefined, tenant: tenantOf(c), appName: app })
  if (!found.ok) return problem(c, found.problem)
  const session = found.session
  if (session.ended) return forwardRunSse(c, deps, text, { [SESSION_HEADER]: session.id, [NOTE_HEADER]: 'session ended; not scored' })

  const call = { agentUrl: deps.agentUrl, fetch: deps.fetch ?? fetch, settings, path: RUN_SSE_PATH, search: withoutResultsParam(search) }
  const upstream = await callAgent(c, call, text)
  if (!upstream.ok) return upstream.response
  const { response, link } = upstream
  const frames = { maxEventBytes: limits.maxEventBytes, always: true }
  if (!response.ok || !isEventStream(response.headers.get('content-type')) || !response.body) {
    return relay(response, { [SESSION_HEADER]: session.id }, link, settings, frames)
  }

  const inline = mode.mode === 'inline'
  const maxFrameChars = limits.maxEventBytes + SSE_FRAME_SLACK
  const agent = agentBody(response.body, { link, idleTimeoutMs: settings.idleTimeoutMs, onBreak: 'close', onCancel: () => run.abandon() })
  const run = interleaveResults(session, {
    inline,
    newMessage: request?.newMessage ?? request?.new_message,
    failure: agent.failure,
    metrics: c.get('evalstreamMetrics'),
    limits,
    verdictWaitMs: settings.verdictWaitMs,
    ...(deps.proxySleep ? { sleep: deps.proxySleep } : {}),
  })
  // A client that leaves while the stream waits for verdicts ends the wait (the agent's body is over by then).
  c.req.raw.signal.addEventListener('abort', () => run.abandon(), { once: true })
  const body = agent.stream
    // TypeScript's DOM types let TextDecoderStream take any BufferSource, which a byte stream is not typed as.
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    // A torn last frame after a failure is not a frame: drop it; a clean end just lacked the blank
    // line, which it gets only when our frames follow it (else the client gets it as the agent sent it).
    .pipeThrough(sseFrameStream({ keepRest: () => agent.failure() === undefined, terminateRest: inline, maxFrameChars }))
    .pipeThrough(run.transform)
    .pipeThrough(new TextEncoderStream())
  const headers = forwardHeaders(response.headers)
  headers.set(SESSION_HEADER, session.id)
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}

/**
 * Every other ADK api_server route, forwarded unchanged (body streamed both ways), except that an
 * event-stream answer has its agent `evalstream` frames renamed.
 */
export async function forwardAll(c: Context, deps: AppDeps, body?: string, extra?: Record<string, string>) {
  if (!deps.agentUrl) return proxyOff(c)
  // fetch() cannot send these (a forbidden method): answer for the agent instead of failing as a 502.
  if (UNFORWARDABLE_METHODS.has(c.req.method.toUpperCase())) {
    const refused = problem(
      c,
      'method_not_allowed',
      'Method not allowed',
      `${c.req.method} is not forwarded to the agent; use ${FORWARDED_METHODS}`,
    )
    refused.headers.set('allow', FORWARDED_METHODS)
    return refused
  }
  const settings = deps.proxy ?? DEFAULT_PROXY_SETTINGS
  const upstream = await callAgent(c, { agentUrl: deps.agentUrl, fetch: deps.fetch ?? fetch, settings }, body)
  const frames = { maxEventBytes: (deps.limits ?? DEFAULT_LIMITS).maxEventBytes }
  return upstream.ok ? relay(upstream.response, extra, upstream.link, settings, frames) : upstream.response
}

/** A /run_sse that is not scored: to the agent's /run_sse, every answer's frames renamed whatever its type. */
async function forwardRunSse(c: Context, deps: AppDeps, body: string, extra?: Record<string, string>) {
  if (!deps.agentUrl) return proxyOff(c)
  const settings = deps.proxy ?? DEFAULT_PROXY_SETTINGS
  const call = {
    agentUrl: deps.agentUrl,
    fetch: deps.fetch ?? fetch,
    settings,
    path: RUN_SSE_PATH,
    search: withoutResultsParam(new URL(c.req.url).search),
  }
  const upstream = await callAgent(c, call, body)
  const frames = { maxEventBytes: (deps.limits ?? DEFAULT_LIMITS).maxEventBytes, always: true }
  return upstream.ok ? relay(upstream.response, extra, upstream.link, settings, frames) : upstream.response
}

/** Methods fetch() refuses to send (TRACE and TRACK would echo credentials back, CONNECT opens a tunnel). */
const UNFORWARDABLE_METHODS = new Set(['TRACE', 'TRACK', 'CONNECT'])
const FORWARDED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'

function proxyOff(c: Context): Response {
  const path = new URL(c.req.url).pathname
  return problem(c, 'not_configured', 'Not found', `no route ${c.req.method} ${path}; set AGENT_URL to proxy ADK routes to an agent`)
}

/** Which session a proxied run scores against, and who is asking. */
export type SessionLookup = { id: string; mustExist: boolean; tenant: string | undefined; appName?: string | undefined }

type Found = { ok: true; session: HostedSession } | Failure

async function findOrCreate(deps: AppDeps, lookup: SessionLookup): Promise<Found> {
  const { id, mustExist, tenant } = lookup
  // Another tenant's session is treated as missing: never scored into, never revealed.
  const notFound = failure('session_not_found', 'Session not found', `no session with id '${id}'`)
  const existing = await deps.store.get(id, deps.createEngine)
  if (existing) return visibleTo(existing, tenant) ? { ok: true, session: existing } : notFound
  if (mustExist) return failure('session_not_found', 'Session not found', `${SESSION_HEADER} names '${id}', which does not exist`)
  const created = await deps.store.create(
    { session_id: id, eval_config: deps.defaultConfig, ...tenantField(tenant), ...(lookup.appName ? { app_name: lookup.appName } : {}) },
    deps.createEngine,
  )
  if (created.ok || created.problem.code !== 'session_exists') return created
  // Another conversation created it a moment ago.
  const raced = await deps.store.get(id, deps.createEngine)
  return raced ? (visibleTo(raced, tenant) ? { ok: true, session: raced } : notFound) : created
}

function parseObject(text: string): Record<string, unknown> | undefined {
  // Out of bounds on the raw text: not parsed here (the agent answers it, unscored).
  if (scanJsonBounds(text, DEFAULT_LIMITS)) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

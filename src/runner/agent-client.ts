/**
 * The two ADK api_server calls a run needs: create a session, then stream one turn through
 * `/run_sse`. Every ADK server (Python, JS, Go, Java) speaks this API. Failures are `AgentError`s
 * with a kind and a sentence naming the agent and the limit, so a case can report why it was not
 * evaluated. Runtime-neutral: the caller passes `fetch` (a Worker's service binding, a test double).
 */
import { pathSegmentProblem } from './path-segment.ts'
import type { Content } from '../adk/content.ts'
import { wireContent } from './wire-content.ts'
import { parseJsonWithin } from '../adk/json-within.ts'
import { DEFAULT_LIMITS } from '../ingest/limits.ts'
import { violationIssue } from '../ingest/frame.ts'

/** How long creating a session on the agent may take, in milliseconds. */
export const DEFAULT_SESSION_TIMEOUT_MS = 30_000
/** How long one turn (the whole `/run_sse` response, first byte to last) may take, in milliseconds. */
export const DEFAULT_TURN_TIMEOUT_MS = 300_000
/** How much of an error response's body is quoted in the reason, in characters. */
export const MAX_ERROR_BODY_CHARS = 300

export type AgentTarget = {
  /** The api_server's base URL, e.g. `http://127.0.0.1:8000` (a path prefix is kept). */
  url: string
  /** The app (agent folder) name, as in `/list-apps`. */
  app: string
  fetch?: typeof fetch
}

export type AgentErrorKind = 'unreachable' | 'http' | 'timeout' | 'protocol' | 'agent' | 'cancelled'

/** Why talking to the agent failed; `message` is a full sentence for reports. */
export class AgentError extends Error {
  readonly kind: AgentErrorKind
  readonly status?: number
  constructor(kind: AgentErrorKind, message: string, status?: number) {
    super(message)
    this.name = 'AgentError'
    this.kind = kind
    this.status = status
  }
}

export type CallLimits = { timeoutMs: number; signal?: AbortSignal }

/**
 * `POST /apps/{app}/users/{user}/sessions` with the initial state; returns the session id the agent chose.
 * @example const id = await createAgentSession({ url: 'http://127.0.0.1:8000', app: 'weather' }, 'u1', {}, { timeoutMs: 30_000 })
 */
export async function createAgentSession(
  target: AgentTarget,
  userId: string,
  state: Record<string, unknown>,
  limits: CallLimits,
): Promise<string> {
  for (const [field, value] of [['app_name', target.app], ['user_id', userId]] as const) {
    const problem = pathSegmentProblem(field, value)
    if (problem) throw new AgentError('protocol', `creating a session on the agent: ${problem}`)
  }
  const path = `/apps/${encodeURIComponent(target.app)}/users/${encodeURIComponent(userId)}/sessions`
  const what = `creating a session (POST ${path})`
  return withDeadline(target, what, limits, async (signal) => {
    const response = await send(target, path, { state }, signal, what)
    if (!response.ok) throw await httpError(response, what)
    // Bounds on the raw text before parsing: the agent's JSON is as untrusted as a client's.
    const parsed = parseJsonWithin(await response.text(), DEFAULT_LIMITS)
    if (!parsed.ok && parsed.reason === 'bounds') {
      throw new AgentError('protocol', `${what}: the agent's answer is out of bounds: ${violationIssue(parsed.violation, 0).message}`)
    }
    if (!parsed.ok) throw new AgentError('protocol', `${what}: the agent's answer is not JSON (${parsed.message})`)
    const body = parsed.value
    const id = (body as { id?: unknown } | null)?.id
    if (typeof id !== 'string' || id === '') throw new AgentError('protocol', `${what}: the agent's answer has no session "id"`)
    return id
  })
}

export type TurnRequest = { userId: string; sessionId: string; newMessage: Content }

/**
 * One turn: `POST /run_sse` with `streaming: true`; every body chunk goes to `onChunk` as it arrives.
 * Resolves when the agent ends the response.
 * @example await runTurn(target, { userId: 'u1', sessionId: id, newMessage }, { timeoutMs: 300_000, onChunk: (b) => decoder.push(b) })
 */
export async function runTurn(
  target: AgentTarget,
  turn: TurnRequest,
  limits: CallLimits & { onChunk(bytes: Uint8Array): void },
): Promise<void> {
  const what = 'a turn (POST /run_sse)'
  const body = {
    appName: target.app,
    userId: turn.userId,
    sessionId: turn.sessionId,
    newMessage: wireContent(turn.newMessage),
    streaming: true,
  }
  await withDeadline(target, what, limits, async (signal) => {
    const response = await send(target, '/run_sse', body, signal, what)
    if (!response.ok) throw await httpError(response, what)
    const type = response.headers.get('content-type') ?? ''
    if (!type.startsWith('text/event-stream') || !response.body) {
      await response.body?.cancel().catch(() => {})
      throw new AgentError('protocol', `${what}: expected text/event-stream, the agent answered '${type || 'no content type'}'`)
    }
    const reader = response.body.getReader()
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) limits.onChunk(r.value)
    } catch (e) {
      if (signal.aborted) throw e
      throw new AgentError('unreachable', `${what}: the agent broke off its response (${causeOf(e)})`)
    } finally {
      reader.releaseLock()
    }
  })
}

/** Joins a route onto the base URL as a path (never resolved as a URL, so it stays on the agent's origin). */
export function agentUrl(base: string, path: string): URL {
  const url = new URL(base)
  url.pathname = url.pathname.replace(/\/+$/, '') + path
  url.search = ''
  return url
}

async function send(target: AgentTarget, path: string, body: unknown, signal: AbortSignal, what: string): Promise<Response> {
  const url = agentUrl(target.url, path)
  try {
    return await (target.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: path === '/run_sse' ? 'text/event-stream' : 'application/json' },
      body: JSON.stringify(body),
      signal,
    })
  } catch (e) {
    if (signal.aborted) throw e
    throw new AgentError('unreachable', `${what}: cannot reach the agent at ${url.origin} (${causeOf(e)})`)
  }
}

/**
 * Runs `work` with a signal that aborts at the deadline or when the caller's signal aborts, and
 * turns either into an AgentError that says which.
 */
async function withDeadline<T>(
  target: AgentTarget,
  what: string,
  limits: CallLimits,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort(new Error('timeout'))
  }, limits.timeoutMs)
  const onAbort = () => controller.abort(limits.signal?.reason)
  if (limits.signal?.aborted) onAbort()
  limits.signal?.addEventListener('abort', onAbort, { once: true })
  try {
    return await work(controller.signal)
  } catch (e) {
    if (timedOut) {
      throw new AgentError('timeout', `${what}: no complete answer from ${new URL(target.url).origin} within ${limits.timeoutMs} ms`)
    }
    if (controller.signal.aborted) throw new AgentError('cancelled', `${what}: cancelled (${causeOf(limits.signal?.reason)})`)
    throw e
  } finally {
    clearTimeout(timer)
    limits.signal?.removeEventListener('abort', onAbort)
  }
}

async function httpError(response: Response, what: string): Promise<AgentError> {
  let text = ''
  try {
    text = (await response.text()).trim()
  } catch {
    // The body is only for the message.
  }
  const quoted = text ? `: ${text.length > MAX_ERROR_BODY_CHARS ? `${text.slice(0, MAX_ERROR_BODY_CHARS)}…` : text}` : ''
  return new AgentError('http', `${what}: the agent answered ${response.status}${quoted}`, response.status)
}

/** Node's fetch says "fetch failed" and keeps the reason (ECONNREFUSED …) in `cause`. */
function causeOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e)
  const cause = e.cause as { code?: string; message?: string } | undefined
  return cause?.code ?? cause?.message ?? e.message
}

/**
 * `add_session`: a live ADK session becomes an eval case, as ADK's dev server does it. The session
 * is fetched from the agent (`GET /apps/{app}/users/{user}/sessions/{id}`), its events are turned
 * into invocations by ADK's `convert_events_to_eval_invocations` (src/core/events-to-invocations.ts),
 * and the case records who ran it (`session_input`: app, user, initial state).
 *
 * One difference: ADK fills the initial state with `create_empty_state(root_agent)` (the agent's
 * instruction placeholders, all empty), which needs the agent's code; evalstream only sees the
 * agent over HTTP, so the state is `{}`.
 */
import { type Failure, failure } from '../../engine/problem.ts'
import { AdkEvent } from '../../adk/event.ts'
import type { EvalCase } from '../../adk/eval-set.ts'
import { isRecord } from '../../adk/json.ts'
import { eventsToInvocations } from '../../core/events-to-invocations.ts'
import { agentTarget } from '../proxy/forward.ts'
import { boundsIssue, DEFAULT_LIMITS, type Limits, violationIssue } from '../../ingest/index.ts'
import { scanJsonItems } from '../../adk/json-scan.ts'
import { readTextLimited } from '../read-body.ts'

/** The agent must answer a session fetch within this long, in milliseconds. */
export const SESSION_FETCH_TIMEOUT_MS = 30_000
/** A session larger than this (bytes of JSON) is refused rather than buffered. */
export const MAX_SESSION_BYTES = 20_000_000

export type SessionCase = { ok: true; evalCase: EvalCase } | Failure

export type AddSessionInput = {
  agentUrl: string
  fetch: typeof fetch
  app: string
  userId: string
  sessionId: string
  evalId: string
  /** Seconds since the epoch: the case's creation_timestamp. */
  nowSeconds: number
  /** The limits on what is read from the agent (tests lower them); the constants above otherwise. */
  limits?: { maxSessionBytes?: number; fetchTimeoutMs?: number; events?: Limits }
}

/**
 * @example
 * const made = await evalCaseFromSession({ agentUrl, fetch, app: 'weather_agent', userId: 'user', sessionId: 's1', evalId: 'paris', nowSeconds: Date.now() / 1000 })
 * if (made.ok) made.evalCase.conversation?.length // 1
 */
export async function evalCaseFromSession(input: AddSessionInput): Promise<SessionCase> {
  const path = `/apps/${encodeURIComponent(input.app)}/users/${encodeURIComponent(input.userId)}/sessions/${
    encodeURIComponent(input.sessionId)
  }`
  const url = agentTarget(input.agentUrl, path, '')
  const what = `fetching the session from the agent (GET ${path})`
  let response: Response
  // Called unbound: workerd's fetch refuses any other `this` ("Illegal invocation").
  const fetcher = input.fetch
  const timeoutMs = input.limits?.fetchTimeoutMs ?? SESSION_FETCH_TIMEOUT_MS
  const maxBytes = input.limits?.maxSessionBytes ?? MAX_SESSION_BYTES
  try {
    response = await fetcher(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) })
  } catch (e) {
    const timedOut = e instanceof Error && e.name === 'TimeoutError'
    const why = timedOut
      ? `no answer within ${timeoutMs} ms (SESSION_FETCH_TIMEOUT_MS)`
      : `cannot reach ${url.origin} (${(e as Error).message})`
    return failure(timedOut ? 'agent_timeout' : 'agent_unreachable', 'Agent unreachable', `${what}: ${why}`)
  }
  if (response.status === 404) {
    await response.body?.cancel().catch(() => {})
    return failure(
      'agent_session_not_found',
      'Session not found',
      `the agent has no session '${input.sessionId}' of user '${input.userId}' in app '${input.app}'`,
    )
  }
  // readTextLimited reads only the headers and the body, which a Response has too.
  const read = await readTextLimited(response as unknown as Request, maxBytes)
  if (!read.ok) {
    const why = read.reason === 'too_large' ? `the session is larger than ${maxBytes} bytes (MAX_SESSION_BYTES)` : read.error
    return failure('bad_agent_answer', 'Bad agent answer', `${what}: ${why}`)
  }
  if (!response.ok) {
    return failure('bad_agent_answer', 'Bad agent answer', `${what}: the agent answered ${response.status}: ${read.text.slice(0, 300)}`)
  }
  // The agent's JSON is as untrusted as a client's: bounds on the raw text before it is parsed.
  // Each event is bounded on its own (depth counted from the event), as once parsed.
  const eventLimits = input.limits?.events ?? DEFAULT_LIMITS
  const scanned = scanJsonItems(read.text, eventLimits)
  const badIndex = scanned.items?.findIndex((item) => item.violation !== undefined) ?? -1
  const found = scanned.violation ?? scanned.items?.[badIndex]?.violation
  if (found) {
    const where = scanned.violation ? '' : `events[${badIndex}]: `
    return failure('bad_agent_answer', 'Bad agent answer', `${what}: ${where}${violationIssue(found, badIndex, eventLimits).message}`)
  }
  let session: unknown
  try {
    session = JSON.parse(read.text)
  } catch (e) {
    return failure('bad_agent_answer', 'Bad agent answer', `${what}: the answer is not JSON (${(e as Error).message})`)
  }
  const rawEvents = isRecord(session) ? session.events : undefined
  if (rawEvents !== undefined && rawEvents !== null && !Array.isArray(rawEvents)) {
    return failure('bad_agent_answer', 'Bad agent answer', `${what}: "events" is not an array`)
  }
  const events: AdkEvent[] = []
  for (const [index, raw] of (rawEvents ?? []).entries()) {
    // The agent's JSON is as untrusted as a client's: bounded before zod walks it.
    const bounds = boundsIssue(raw, index, input.limits?.events ?? DEFAULT_LIMITS)
    if (bounds) return failure('bad_agent_answer', 'Bad agent answer', `${what}: events[${index}]: ${bounds.message}`)
    const parsed = AdkEvent.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const at = issue ? `events[${index}].${issue.path.join('.')}` : `events[${index}]`
      return failure('bad_agent_answer', 'Bad agent answer', `${what}: ${at}: ${issue?.message ?? 'not an ADK event'}`)
    }
    events.push(parsed.data)
  }
  const evalCase: EvalCase = {
    eval_id: input.evalId,
    conversation: eventsToInvocations(events),
    session_input: { app_name: input.app, user_id: input.userId, state: {} },
    creation_timestamp: input.nowSeconds,
  }
  return { ok: true, evalCase }
}

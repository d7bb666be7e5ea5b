/**
 * Runs route probes against the real app in process (`createApp(deps).request()`): no socket, the
 * same code path as every runtime. A probe fails when any response is a 5xx, a request or a body
 * read throws, a body does not end by itself within BODY_DEADLINE_MS, or a session that took
 * events cannot be read, ended and replayed to its `case.result` afterwards.
 */
import type { Hono } from 'hono'
import { createApp } from '../../../src/http/app.ts'
import { SESSION_ID_PATTERN } from '../../../src/http/create-request.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv } from '../../../src/config/setup.ts'
import { SAMPLE_CONFIG, SAMPLE_EVAL_SET } from './json-text.ts'
import type { AgentAnswer, Probe } from './route-probes.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'

/** A response body that has not ended after this long counts as a hang. */
export const BODY_DEADLINE_MS = 5_000
/** The id of a session every target holds, with events and ended, for `{id}` in probe paths. */
export const ENDED_SESSION = 'fuzz-ended'
const AGENT_URL = 'http://agent.fuzz.invalid'

export type Target = { plain: Hono; proxy: Hono; nextId(): string }

/** Two apps (proxy mode off and on) over fresh in-memory stores; the proxy's agent is a fetch stand-in. */
export async function makeTarget(): Promise<Target & { setAgent(answer: AgentAnswer): void }> {
  let agent: AgentAnswer = { kind: 'unreachable' }
  const agentFetch = (async () => agentResponse(agent)) as typeof fetch
  const plain = depsFromEnv(NO_JUDGE_ENV, { store: memorySessionStore() })
  const proxy = depsFromEnv({ ...NO_JUDGE_ENV, AGENT_URL }, { store: memorySessionStore(), fetch: agentFetch })
  if (!plain.ok || !proxy.ok) throw new Error('fuzz target setup failed')
  let n = 0
  const target = {
    plain: createApp(plain.deps),
    proxy: createApp(proxy.deps),
    nextId: () => `fuzz-${++n}`,
    setAgent: (a: AgentAnswer) => void (agent = a),
  }
  for (const app of [target.plain, target.proxy]) {
    await app.request('/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: ENDED_SESSION }),
    })
    await app.request(`/v1/sessions/${ENDED_SESSION}/events`, {
      method: 'POST',
      body: '{"author":"a","invocationId":"i","content":{"role":"model","parts":[{"text":"hi"}]}}',
    })
    await app.request(`/v1/sessions/${ENDED_SESSION}/end`, { method: 'POST' })
  }
  return target
}

function agentResponse(agent: AgentAnswer): Response {
  if (agent.kind === 'unreachable') throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') })
  const chunks = agent.body
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c)
      if (agent.breakOff) controller.error(new TypeError('terminated', { cause: new Error('other side closed') }))
      else controller.close()
    },
  })
  const status = agent.status
  const nullBody = status === 204 || status === 304
  return new Response(nullBody ? null : body, { status, headers: agent.contentType ? { 'content-type': agent.contentType } : {} })
}

const streamOf = (chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c)
      controller.close()
    },
  })

type Call = { status: number; text: string }

/**
 * What a 5xx or a broken body may legitimately be: in proxy mode, the agent's own status relayed,
 * a 502/504 naming an agent we cannot reach, an agent body that broke off passed through.
 */
type Allow = { status?: (status: number) => boolean; bodyError?: boolean }

/**
 * One request; pushes a failure line for a 5xx, a throw, a broken or endless body.
 * `readBody: false` only checks the status (a live stream that is meant to stay open).
 */
async function call(
  app: Hono,
  route: string,
  path: string,
  init: RequestInit,
  failures: string[],
  readBody = true,
  allow: Allow = {},
): Promise<Call | undefined> {
  const abort = new AbortController()
  let response: Response
  try {
    response = await app.request(
      path,
      { ...init, signal: abort.signal, ...(init.body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit,
    )
  } catch (error) {
    failures.push(`${route}: request threw ${errorText(error)}`)
    return undefined
  }
  let text = ''
  if (readBody || response.status >= 500) {
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), BODY_DEADLINE_MS)))
    try {
      const read = await Promise.race([response.text(), deadline])
      if (read === 'hang') failures.push(`${route}: ${response.status} body did not end within ${BODY_DEADLINE_MS} ms`)
      else text = read
    } catch (error) {
      if (!allow.bodyError) failures.push(`${route}: ${response.status} body failed: ${errorText(error)}`)
    } finally {
      clearTimeout(timer)
      abort.abort()
    }
  } else {
    abort.abort()
    await response.body?.cancel().catch(() => {})
  }
  if (response.status >= 500 && !allow.status?.(response.status)) failures.push(`${route}: ${response.status} ${detailOf(text)}`)
  return { status: response.status, text }
}

function detailOf(text: string): string {
  try {
    return String((JSON.parse(text) as { detail?: unknown }).detail ?? text).slice(0, 200)
  } catch {
    return text.slice(0, 200)
  }
}

/** An error in one line: name, message, and the innermost frame in src/ or worker/ (where it broke). */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 200)
  const frame = error.stack?.split('\n').find((line) => /\/(src|worker)\//.test(line))
  const where = frame ? ` at ${/((?:src|worker)\/[^):]+:\d+)/.exec(frame)?.[1] ?? ''}` : ''
  return `${error.name}: ${error.message}`.slice(0, 200) + where
}

const CASE = (SAMPLE_EVAL_SET.eval_cases as unknown[])[0]

/** Runs one probe; returns its failures (empty when the service behaved). */
export async function runProbe(target: Target & { setAgent(a: AgentAnswer): void }, probe: Probe): Promise<string[]> {
  const failures: string[] = []
  const headers = (type?: string, extra: Record<string, string | undefined> = {}) =>
    Object.fromEntries(Object.entries({ 'content-type': type, ...extra }).filter(([, v]) => v !== undefined)) as Record<string, string>

  if (probe.kind === 'create') {
    await call(target.plain, 'POST /v1/sessions', '/v1/sessions', {
      method: 'POST',
      headers: headers(probe.contentType),
      body: streamOf(probe.body),
    }, failures)
    return failures
  }

  if (probe.kind === 'events') {
    const id = target.nextId()
    const spec = probe.withCase ? { session_id: id, eval_config: SAMPLE_CONFIG, eval_case: CASE } : { session_id: id }
    const created = await call(target.plain, 'POST /v1/sessions (setup)', '/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spec),
    }, failures)
    if (created?.status !== 201) return [...failures, `POST /v1/sessions (setup): ${created?.status} instead of 201`]
    const base = `/v1/sessions/${id}`
    const upload = { method: 'POST', headers: headers(probe.contentType, { accept: probe.accept }), body: streamOf(probe.body) }
    await call(target.plain, `POST {id}/events (${probe.accept ?? 'no accept'})`, `${base}/events`, upload, failures)
    await call(target.plain, 'GET {id} after events', base, {}, failures)
    const ended = await call(target.plain, 'POST {id}/end after events', `${base}/end`, { method: 'POST' }, failures)
    const replay = await call(target.plain, 'GET {id}/results after end', `${base}/results`, {}, failures)
    if (ended?.status === 200 && replay && replay.status === 200 && !replay.text.includes('event: case.result')) {
      failures.push('GET {id}/results after end: the replay has no case.result')
    }
    return failures
  }

  if (probe.kind === 'path') {
    const path = probe.path.replace('{id}', ENDED_SESSION)
    const init: RequestInit = { method: probe.method, headers: headers(probe.contentType, { 'last-event-id': probe.lastEventId }) }
    if (probe.body && probe.method !== 'GET' && probe.method !== 'HEAD') init.body = streamOf(probe.body)
    // A results stream of a session that is still open is meant to stay open: check its status only.
    const live = /\/results\/?$/.test(path) && !path.includes(ENDED_SESSION)
    await call(target.plain, `${probe.method} ${routeOf(path)}`, path, init, failures, !live)
    return failures
  }

  const agent = probe.agent
  target.setAgent(agent)
  const sessionHeader = probe.sessionHeader === '{id}' ? ENDED_SESSION : probe.sessionHeader
  const init = {
    method: 'POST',
    headers: headers('application/json', { 'x-evalstream-session': sessionHeader }),
    body: streamOf(probe.request),
  }
  // Only a scored /run_sse stream (2xx event stream) must end cleanly when the agent breaks off:
  // its results and an error result reach the client. Anything relayed mirrors the agent, and so
  // does a run named into the ended session (passed through unscored).
  const scored = probe.path === '/run_sse' && namesSession(probe.request, sessionHeader) && sessionHeader !== ENDED_SESSION &&
    agent.kind === 'answer' && agent.status < 300 && agent.contentType.startsWith('text/event-stream')
  const allow: Allow = {
    status: (status) => (agent.kind === 'unreachable' ? status === 502 || status === 504 : status === agent.status),
    bodyError: agent.kind === 'answer' && agent.breakOff && !scored,
  }
  const label = `proxy POST ${probe.path} (agent ${
    agent.kind === 'answer' ? `${agent.status}${agent.breakOff ? ', breaks off' : ''}` : 'unreachable'
  })`
  await call(target.proxy, label, probe.path, init, failures, true, allow)
  return failures
}

/**
 * Whether a proxied run names a session evalstream scores into (the header, or ADK's session id in
 * a JSON body); one that names none, or an id evalstream cannot host, is relayed unscored.
 */
function namesSession(request: Uint8Array[], header: string | undefined): boolean {
  if (header !== undefined) return SESSION_ID_PATTERN.test(header)
  try {
    const body: unknown = JSON.parse(new TextDecoder().decode(concatBytes(request)))
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
    const id = (body as Record<string, unknown>).sessionId ?? (body as Record<string, unknown>).session_id
    return typeof id === 'string' && id !== '' && SESSION_ID_PATTERN.test(id)
  } catch {
    return false
  }
}

function concatBytes(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of chunks) (out.set(c, at), (at += c.length))
  return out
}

/** The route a path hits, with the id taken out, so failures group by route. */
function routeOf(path: string): string {
  const m = /^\/v1\/sessions\/[^/]*(\/[^/]*)?/.exec(path)
  if (m) return `/v1/sessions/{id}${m[1] ?? ''}`
  return path.length > 40 ? `${path.slice(0, 40)}…` : path
}

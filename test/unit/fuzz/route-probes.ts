/**
 * Route probes: what the route fuzzer sends. Each probe is one scenario against the app, in
 * process through `app.request()`: create a session with a hostile body; upload hostile events to
 * a fresh session and then read it, end it and replay its results (a poisoned session shows up
 * there); a hostile method/path/Last-Event-ID; proxy mode with a hostile client request and a
 * hostile agent answer (torn frames, an agent that breaks off, one that cannot be reached).
 */
import fc from 'fast-check'
import { chunked, contentType, corruptBytes, type EventFormatName, eventsBodyText, headerValue, pathSegment } from './bodies.ts'
import { createBodyText, eventText, hostileText, splice } from './json-text.ts'

export type Probe =
  | { kind: 'create'; body: Uint8Array[]; contentType?: string }
  | { kind: 'events'; body: Uint8Array[]; format: EventFormatName; contentType?: string; accept?: string; withCase: boolean }
  | { kind: 'path'; method: string; path: string; lastEventId?: string; body?: Uint8Array[]; contentType?: string }
  | { kind: 'proxy'; path: string; request: Uint8Array[]; sessionHeader?: string; agent: AgentAnswer }

/** What the fake agent behind the proxy does. */
export type AgentAnswer =
  | { kind: 'unreachable' }
  | { kind: 'answer'; status: number; contentType: string; body: Uint8Array[]; breakOff: boolean }

const FORMAT_TYPES: Record<EventFormatName, string> = { json: 'application/json', ndjson: 'application/x-ndjson', sse: 'text/event-stream' }
const bytesOf = (text: fc.Arbitrary<string>) => text.chain(corruptBytes).chain(chunked)

const createProbe: fc.Arbitrary<Probe> = fc.record({
  kind: fc.constant('create' as const),
  body: bytesOf(createBodyText),
  contentType: fc.oneof({ weight: 4, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentType }),
})

const eventsProbe: fc.Arbitrary<Probe> = fc.constantFrom<EventFormatName>('json', 'ndjson', 'sse').chain((format) =>
  fc.record({
    kind: fc.constant('events' as const),
    format: fc.constant(format),
    body: bytesOf(eventsBodyText(format)),
    contentType: fc.oneof({ weight: 6, arbitrary: fc.constant(FORMAT_TYPES[format]) }, { weight: 1, arbitrary: contentType }),
    accept: fc.constantFrom(undefined, 'text/event-stream', 'application/json', '*/*'),
    withCase: fc.boolean(),
  })
)

/** `{id}` in a path template is an existing, ended session (see ENDED_SESSION in route-driver.ts). */
const pathProbe: fc.Arbitrary<Probe> = fc.record({
  kind: fc.constant('path' as const),
  method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD'),
  path: fc.oneof(
    fc.tuple(fc.oneof(pathSegment, fc.constant('{id}')), fc.constantFrom('', '/events', '/results', '/end', '/x', '/', '/results/')).map((
      [s, t],
    ) => `/v1/sessions/${s}${t}`),
    pathSegment.map((s) => `/${s}`),
    pathSegment.map((s) => `/v1/${s}`),
    fc.constantFrom('/healthz', '/v1/criteria', '/v1/sessions', '/v1/sessions/', '/run_sse', '//', '/v1//sessions'),
  ),
  lastEventId: fc.option(fc.oneof(fc.constantFrom('0', '-1', '1e400', '999999999999', '3', 'NaN', ' 2', '0x10'), headerValue), {
    nil: undefined,
  }),
  body: fc.option(bytesOf(hostileText), { nil: undefined }),
  contentType: fc.option(contentType, { nil: undefined }),
})

const RUN_SSE_REQUEST = {
  appName: 'weather_agent',
  userId: 'u',
  sessionId: 's',
  newMessage: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
  streaming: false,
}

const agentAnswer: fc.Arbitrary<AgentAnswer> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'unreachable' as const }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      status: fc.constantFrom(200, 200, 200, 201, 204, 400, 404, 500, 502),
      contentType: fc.constantFrom('text/event-stream', 'text/event-stream; charset=utf-8', 'application/json', 'text/plain', ''),
      body: bytesOf(eventsBodyText('sse')),
      breakOff: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
)

const proxyProbe: fc.Arbitrary<Probe> = fc.record({
  kind: fc.constant('proxy' as const),
  path: fc.constantFrom('/run_sse', '/run_sse', '/run_sse', '/list-apps', '/apps/a/users/u/sessions/s'),
  request: bytesOf(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.tuple(fc.nat(), hostileText, fc.constantFrom('x', 'sessionId', '__proto__')).map(([p, t, k]) =>
          splice(RUN_SSE_REQUEST, p, t, k)
        ),
      },
      { weight: 2, arbitrary: pathSegment.map((s) => JSON.stringify({ ...RUN_SSE_REQUEST, sessionId: decodeURIComponentSafe(s) })) },
      { weight: 1, arbitrary: eventText },
    ),
  ),
  sessionHeader: fc.option(fc.oneof(headerValue, fc.constant('{id}')), { nil: undefined, freq: 4 }),
  agent: agentAnswer,
})

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Every probe kind, weighted toward the events upload (the most code behind it). */
export const probe: fc.Arbitrary<Probe> = fc.oneof(
  { weight: 3, arbitrary: createProbe },
  { weight: 5, arbitrary: eventsProbe },
  { weight: 3, arbitrary: pathProbe },
  { weight: 3, arbitrary: proxyProbe },
)

const size = (chunks?: Uint8Array[]) => (chunks ?? []).reduce((n, c) => n + c.length, 0)
const head = (chunks?: Uint8Array[]) => JSON.stringify(new TextDecoder().decode((chunks ?? [])[0]?.subarray(0, 100) ?? new Uint8Array()))

/** A short human description of a probe, for failure reports. */
export function describeProbe(p: Probe): string {
  if (p.kind === 'create') return `POST /v1/sessions type=${p.contentType} bytes=${size(p.body)} starts ${head(p.body)}`
  if (p.kind === 'events') {
    return `events ${p.format} type=${p.contentType} accept=${p.accept} case=${p.withCase} bytes=${
      size(p.body)
    } chunks=${p.body.length} starts ${head(p.body)}`
  }
  if (p.kind === 'path') return `${p.method} ${p.path.slice(0, 120)} last-event-id=${p.lastEventId} bytes=${size(p.body)}`
  const agent = p.agent.kind === 'unreachable'
    ? 'unreachable'
    : `${p.agent.status} ${p.agent.contentType} bytes=${size(p.agent.body)} breakOff=${p.agent.breakOff}`
  return `proxy ${p.path} header=${p.sessionHeader} bytes=${size(p.request)} starts ${head(p.request)} agent=${agent}`
}

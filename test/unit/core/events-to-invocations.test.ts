import { fileURLToPath } from 'node:url'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { contentText } from '../../../src/adk/content.ts'
import { AdkEvent } from '../../../src/adk/event.ts'
import { Invocation, toolCallsOf, toolResponsesOf } from '../../../src/adk/invocation.ts'
import { eventsToInvocations } from '../../../src/core/events-to-invocations.ts'
import { decodeAll } from '../../../src/ingest/decoder.ts'

/** The committed copy of the shared ADK vectors and captures. */
const SHARED = fileURLToPath(new URL('../../fixtures/shared', import.meta.url))
type Vector = { id: string; events: unknown[]; expected_invocations: unknown[] }
const vectors: Vector[] = JSON.parse(readFileSync(`${SHARED}/vectors/events_to_invocations.json`, 'utf8')).vectors
const ev = (raw: unknown) => AdkEvent.parse(raw)
const user = (id: string, text: string, extra: object = {}) =>
  ev({ invocationId: id, author: 'user', content: { role: 'user', parts: [{ text }] }, ...extra })
const agent = (id: string, parts: unknown[], extra: object = {}) =>
  ev({ invocationId: id, author: 'agent', content: { role: 'model', parts }, ...extra })
const call = (name: string, id?: string) => ({ functionCall: { name, args: {}, ...(id ? { id } : {}) } })

describe('eventsToInvocations: ADK vectors', () => {
  it.each(vectors.map((v) => [v.id, v] as const))('%s', (_, vector) => {
    const actual = eventsToInvocations(vector.events.map(ev))
    const expected = vector.expected_invocations.map((i) => Invocation.parse(i))
    expect(actual).toEqual(expected)
    // Our output is a valid Invocation and survives a JSON round trip unchanged.
    for (const invocation of actual) expect(Invocation.parse(JSON.parse(JSON.stringify(invocation)))).toEqual(invocation)
  })
})

describe('eventsToInvocations: ADK rules beyond the vectors', () => {
  it('author matching is case-insensitive and a missing author is the agent', () => {
    const [inv] = eventsToInvocations([
      ev({ invocationId: 'i', author: 'USER', content: { parts: [{ text: 'q' }] }, timestamp: 10 }),
      ev({ invocationId: 'i', content: { parts: [{ text: 'a' }] } }),
    ])
    expect(contentText(inv!.user_content)).toBe('q')
    expect(inv!.creation_timestamp).toBe(10)
    expect(contentText(inv!.final_response)).toBe('a')
  })

  it('a tool result (author = agent, role = user) is not user content', () => {
    const result = ev({
      invocationId: 'i',
      author: 'weather_agent',
      content: { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: 1 } } }] },
    })
    const [inv] = eventsToInvocations([user('i', 'q'), agent('i', [call('f')]), result, agent('i', [{ text: 'done' }])])
    expect(contentText(inv!.user_content)).toBe('q')
    expect(toolResponsesOf(inv!)).toHaveLength(1)
  })

  it('the last user event wins; one without content is skipped (no timestamp change)', () => {
    const [inv] = eventsToInvocations([
      user('i', 'first', { timestamp: 1 }),
      user('i', 'second', { timestamp: 2 }),
      ev({ invocationId: 'i', author: 'user', timestamp: 3 }),
    ])
    expect(contentText(inv!.user_content)).toBe('second')
    expect(inv!.creation_timestamp).toBe(2)
  })

  it('millisecond timestamps (ADK JS) become seconds', () => {
    const [inv] = eventsToInvocations([user('i', 'q', { timestamp: 1795311810751 })])
    expect(inv!.creation_timestamp).toBeCloseTo(1795311810.751, 6)
  })

  it('groups by invocation id in first-seen order: a late event joins its invocation', () => {
    const invs = eventsToInvocations([user('a', 'qa'), user('b', 'qb'), agent('a', [{ text: 'ra' }])])
    expect(invs.map((i) => i.invocation_id)).toEqual(['a', 'b'])
    expect(contentText(invs[0]!.final_response)).toBe('ra')
    expect(invs[1]!.final_response).toBeUndefined()
  })

  it('content-less events add nothing but still open their invocation', () => {
    const invs = eventsToInvocations([ev({ invocationId: 'x', author: 'agent', actions: { stateDelta: { k: 1 } } })])
    expect(invs).toHaveLength(1)
    expect(invs[0]!.user_content).toEqual({ parts: [] })
    expect(invs[0]!.intermediate_data).toEqual({ invocation_events: [] })
    expect(invs[0]!.final_response).toBeUndefined()
  })

  it('a text ending in a code execution result is not final but is intermediate', () => {
    const [inv] = eventsToInvocations([
      user('i', 'q'),
      agent('i', [{ text: 'running' }, { codeExecutionResult: { outcome: 'OUTCOME_OK' } }]),
    ])
    expect(inv!.final_response).toBeUndefined()
    expect(inv!.intermediate_data).toMatchObject({ invocation_events: [{ author: 'agent' }] })
  })

  it('a skip_summarization function-response event is the final response and leaves the trajectory data (as ADK)', () => {
    const response = { functionResponse: { name: 'f', response: { r: 1 } } }
    const [inv] = eventsToInvocations([
      user('i', 'q'),
      agent('i', [call('f')]),
      agent('i', [response], { actions: { skipSummarization: true } }),
    ])
    expect(inv!.final_response?.parts?.[0]?.function_response?.name).toBe('f')
    expect(contentText(inv!.final_response)).toBe('')
    expect(toolCallsOf(inv!).map((c) => c.name)).toEqual(['f'])
    expect(toolResponsesOf(inv!)).toEqual([])
  })
})

describe('eventsToInvocations: documented differences from ADK', () => {
  it('(a) partial chunks are dropped: the streamed text counts once', () => {
    const [inv] = eventsToInvocations([
      user('i', 'q'),
      agent('i', [{ text: 'It is ' }], { partial: true }),
      agent('i', [{ text: 'sunny.' }], { partial: true }),
      agent('i', [{ text: 'It is sunny.' }], { partial: false }),
    ])
    expect(contentText(inv!.final_response)).toBe('It is sunny.')
    expect(inv!.intermediate_data).toEqual({ invocation_events: [] })
  })

  it('(b) #5410: a long-running call that ends the invocation stays in the trajectory (ADK drops it)', () => {
    // ADK 2.0 gives invocation_events [] here, so tool_trajectory_avg_score scores 0 on a matching call.
    const [inv] = eventsToInvocations([
      user('i', 'book it'),
      agent('i', [{ text: 'Booking now.' }, call('book', 'c1')], { longRunningToolIds: ['c1'] }),
    ])
    expect(toolCallsOf(inv!).map((c) => c.name)).toEqual(['book'])
    // final_response is still ADK's choice, so response criteria see ADK's text.
    expect(contentText(inv!.final_response)).toBe('Booking now.')
  })

  it('(b) #5410: a skip_summarization function-call event keeps its calls', () => {
    const [inv] = eventsToInvocations([
      user('i', 'q'),
      agent('i', [call('first')]),
      agent('i', [call('second')], { actions: { skipSummarization: true } }),
    ])
    expect(toolCallsOf(inv!).map((c) => c.name)).toEqual(['first', 'second'])
    expect(inv!.final_response?.parts?.[0]?.function_call?.name).toBe('second')
  })

  it('a long-running call followed by a final text is intermediate, as in ADK', () => {
    const [inv] = eventsToInvocations([
      user('i', 'q'),
      agent('i', [call('job', 'c1')], { longRunningToolIds: ['c1'] }),
      agent('i', [{ text: 'Started.' }]),
    ])
    expect(toolCallsOf(inv!).map((c) => c.name)).toEqual(['job'])
    expect(contentText(inv!.final_response)).toBe('Started.')
  })
})

describe('eventsToInvocations: recorded ADK JS runs', () => {
  const sample = (name: string) => decodeAll('sse', readFileSync(`${SHARED}/samples/${name}`)).events.map((e) => e.event)

  it.each(['adk-js-weather.sse', 'adk-js-weather-streaming.sse', 'adk-js-weather-scripted-streaming.sse'])(
    '%s: one invocation, two calls and responses, one final text',
    (name) => {
      const events = sample(name)
      const invs = eventsToInvocations(events)
      expect(invs).toHaveLength(1)
      const inv = invs[0]!
      expect(toolCallsOf(inv).map((c) => c.name)).toEqual(['get_weather', 'get_time'])
      expect(toolResponsesOf(inv).map((r) => r.name)).toEqual(['get_weather', 'get_time'])
      // The final text is the last non-partial text event's, and no chunk survives as an intermediate text.
      const lastFull = events.filter((e) => !e.partial && contentText(e.content) !== '').at(-1)!
      expect(contentText(inv.final_response)).toBe(contentText(lastFull.content))
      const data = inv.intermediate_data as { invocation_events: { content: unknown }[] }
      expect(data.invocation_events).toHaveLength(4)
      // /run_sse does not echo the user's message: user content stays empty unless the host adds it.
      expect(inv.user_content).toEqual({ parts: [] })
    },
  )

  it('the streaming run has partial chunks whose concatenation is the final text, counted once', () => {
    const events = sample('adk-js-weather-streaming.sse')
    const chunks = events.filter((e) => e.partial === true).map((e) => contentText(e.content))
    expect(chunks.length).toBeGreaterThan(1)
    const [inv] = eventsToInvocations(events)
    expect(contentText(inv!.final_response)).toBe(chunks.join(''))
  })
})

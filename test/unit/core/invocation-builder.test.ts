import { fileURLToPath } from 'node:url'
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { AdkEvent } from '../../../src/adk/event.ts'
import { contentText } from '../../../src/adk/content.ts'
import { Invocation, toolCallsOf } from '../../../src/adk/invocation.ts'
import { eventsToInvocations } from '../../../src/core/events-to-invocations.ts'
import { createInvocationBuilder } from '../../../src/core/invocation-builder.ts'
import { decodeAll } from '../../../src/ingest/decoder.ts'
import { seededRandom as rng } from '../../support/prng.ts'

/** The committed copy of the shared ADK vectors and captures. */
const SHARED = fileURLToPath(new URL('../../fixtures/shared', import.meta.url))
const ev = (raw: unknown) => AdkEvent.parse(raw)

/** Random events over a few ids, authors and part kinds, including partials, long-running and skip-summarization calls. */
function randomEvents(random: () => number, count: number): AdkEvent[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const events: AdkEvent[] = []
  for (let i = 0; i < count; i++) {
    const parts = pick([
      [{ text: `t${i}` }],
      [{ functionCall: { name: `f${i % 3}`, args: {}, id: `c${i}` } }],
      [{ functionResponse: { name: `f${i % 3}`, response: {} } }],
      [{ text: `t${i}` }, { functionCall: { name: 'g', id: `c${i}` } }],
      [],
      null,
    ])
    events.push(
      ev({
        invocationId: pick(['a', 'a', 'b', 'c', undefined]),
        author: pick(['user', 'User', 'agent', 'sub', undefined]),
        content: parts === null ? undefined : { role: pick(['model', 'user']), parts },
        partial: random() < 0.2 ? true : undefined,
        longRunningToolIds: random() < 0.1 ? [`c${i}`] : undefined,
        actions: random() < 0.1 ? { skipSummarization: true } : undefined,
        timestamp: i,
      }),
    )
  }
  return events
}

function assertMatchesBatch(events: readonly AdkEvent[]): void {
  const builder = createInvocationBuilder()
  for (let i = 0; i < events.length; i++) {
    builder.push(events[i]!)
    // Byte-identical to the batch conversion of the same prefix, after every event.
    expect(JSON.stringify(builder.invocations())).toBe(JSON.stringify(eventsToInvocations(events.slice(0, i + 1))))
  }
  builder.complete()
  expect(JSON.stringify(builder.invocations())).toBe(JSON.stringify(eventsToInvocations(events)))
}

describe('createInvocationBuilder equals eventsToInvocations', () => {
  const vectors: { id: string; events: unknown[] }[] = JSON.parse(
    readFileSync(`${SHARED}/vectors/events_to_invocations.json`, 'utf8'),
  ).vectors
  it.each(vectors.map((v) => [v.id, v] as const))('vector %s', (_, vector) => assertMatchesBatch(vector.events.map(ev)))

  const samples = readdirSync(`${SHARED}/samples`).filter((f) => f.endsWith('.sse'))
  it.each(samples)('sample %s', (name) => {
    const { events } = decodeAll('sse', readFileSync(`${SHARED}/samples/${name}`))
    expect(events.length).toBeGreaterThan(0)
    assertMatchesBatch(events.map((e) => e.event))
  })

  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20])('random sequence, seed %i', (seed) => {
    assertMatchesBatch(randomEvents(rng(seed), 40))
  })
})

describe('createInvocationBuilder signals', () => {
  const user = (id: string) => ev({ invocationId: id, author: 'user', content: { parts: [{ text: `q-${id}` }] } })
  const text = (id: string, t: string, extra: object = {}) =>
    ev({ invocationId: id, author: 'agent', content: { parts: [{ text: t }] }, ...extra })

  it('starts on a new id, completes the previous one, and complete() ends the last', () => {
    const builder = createInvocationBuilder()
    expect(builder.push(user('a'))).toEqual({ started: 'a', final: false })
    expect(builder.push(text('a', 'ra'))).toEqual({ final: true })
    expect(contentText(builder.current()?.final_response)).toBe('ra')
    expect(builder.push(user('b'))).toEqual({ started: 'b', completed: ['a'], final: false })
    expect(builder.isCompleted('a')).toBe(true)
    expect(builder.isCompleted('b')).toBe(false)
    expect(builder.complete()).toEqual({ completed: ['b'], final: false })
    expect(builder.complete()).toEqual({ final: false })
    expect(builder.current()).toBeUndefined()
    expect(builder.invocations().map((i) => i.invocation_id)).toEqual(['a', 'b'])
  })

  it('reports a late event for a completed invocation and folds it in', () => {
    const builder = createInvocationBuilder()
    builder.push(user('a'))
    builder.push(user('b'))
    expect(builder.push(text('a', 'late'))).toEqual({ late: 'a', final: true })
    expect(builder.current()?.invocation_id).toBe('b')
    expect(contentText(builder.invocations()[0]!.final_response)).toBe('late')
  })

  it('marks the final-response event; a later final replaces it; partials never are', () => {
    const builder = createInvocationBuilder()
    const first = text('a', 'first')
    const chunk = text('a', 'sec', { partial: true })
    const second = text('a', 'second')
    builder.push(user('a'))
    expect(builder.push(first).final).toBe(true)
    expect(builder.push(chunk).final).toBe(false)
    expect(builder.finalEventOf('a')).toBe(first)
    expect(builder.push(second).final).toBe(true)
    expect(builder.finalEventOf('a')).toBe(second)
    expect(builder.finalEventOf('missing')).toBeUndefined()
  })

  it('a partial chunk of a new invocation already starts it', () => {
    const builder = createInvocationBuilder()
    expect(builder.push(text('a', 'ch', { partial: true }))).toEqual({ started: 'a', final: false })
    expect(builder.current()?.final_response).toBeUndefined()
  })

  it('snapshots already handed out do not change when more events arrive', () => {
    const builder = createInvocationBuilder()
    builder.push(user('a'))
    const before = builder.current()!
    const json = JSON.stringify(before)
    builder.push(text('a', 'x'))
    builder.push(ev({ invocationId: 'a', author: 'agent', content: { parts: [{ functionCall: { name: 'f' } }] } }))
    expect(JSON.stringify(before)).toBe(json)
    expect(builder.current()).not.toBe(before)
  })
})

// Taking an invocation is O(1) (its events are built when first read, its calls counted as events
// arrive), so a long invocation completed again and again stays linear. What is read later must
// still be the invocation as it stood when it was taken.
describe('invocations taken from the builder', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('read late, equal the batch conversion of their prefix, seed %i', (seed) => {
    const events = randomEvents(rng(seed), 60)
    const builder = createInvocationBuilder()
    const taken: Array<{ invocation: Invocation; prefix: number }> = []
    events.forEach((event, i) => {
      builder.push(event)
      taken.push({ invocation: builder.invocation(event.invocation_id ?? '')!, prefix: i + 1 })
    })
    for (const { invocation, prefix } of taken) {
      const batch = eventsToInvocations(events.slice(0, prefix)).find((inv) => inv.invocation_id === invocation.invocation_id)!
      // The counted calls, before anything walked the events, equal the calls walked from a plain copy.
      const walked = toolCallsOf(Invocation.parse(JSON.parse(JSON.stringify(batch))))
      expect(toolCallsOf(invocation)).toEqual(walked)
      expect(JSON.stringify(invocation)).toBe(JSON.stringify(batch))
    }
  })

  it('taken while open, once completed (its lists cut to size) and after a late event: each reads as the batch', () => {
    const call = (id: string, name: string) => ev({ invocationId: id, author: 'agent', content: { parts: [{ functionCall: { name } }] } })
    const events = [call('a', 'f'), call('a', 'g'), call('b', 'h'), call('a', 'late')]
    const builder = createInvocationBuilder()
    builder.push(events[0]!)
    builder.push(events[1]!)
    const open = builder.invocation('a')!
    builder.push(events[2]!)
    const completed = builder.invocation('a')!
    builder.push(events[3]!)
    const late = builder.invocation('a')!
    // All read only now, after the lists they were taken from were copied and the copy grew.
    expect(toolCallsOf(open).map((c) => c.name)).toEqual(['f', 'g'])
    expect(toolCallsOf(late).map((c) => c.name)).toEqual(['f', 'g', 'late'])
    expect(JSON.stringify(open)).toBe(JSON.stringify(eventsToInvocations(events.slice(0, 2))[0]))
    expect(JSON.stringify(completed)).toBe(JSON.stringify(eventsToInvocations(events.slice(0, 3))[0]))
    expect(JSON.stringify(late)).toBe(JSON.stringify(eventsToInvocations(events)[0]))
  })

  it('reads like a plain object: spread, equality, and replacing its events', () => {
    const builder = createInvocationBuilder()
    const call = (name: string) => ev({ invocationId: 'a', author: 'agent', content: { parts: [{ functionCall: { name } }] } })
    builder.push(call('f'))
    builder.push(call('g'))
    const invocation = builder.invocation('a')!
    expect({ ...invocation }).toEqual(eventsToInvocations([call('f'), call('g')])[0])
    expect(Object.keys(invocation.intermediate_data!)).toEqual(['invocation_events'])
    const data = invocation.intermediate_data as { invocation_events: unknown[] }
    data.invocation_events = [{ author: 'agent', content: { parts: [{ function_call: { name: 'h' } }] } }]
    expect(toolCallsOf(invocation).map((c) => c.name)).toEqual(['h'])
  })
})

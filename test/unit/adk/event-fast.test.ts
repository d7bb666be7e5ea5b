/**
 * Differential test of the fast ADK event normaliser against the zod schema it stands in for:
 * real captures, the vectors' events, their snake_case spellings, and thousands of seeded random
 * mutations. Whenever the fast path answers, its answer must be exactly zod's (same keys in the
 * same order, same undefined-vs-absent, same values); when it gives up, parseAdkEvent must still
 * return zod's result.
 */
import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { FAST_MODEL_FIELDS, fastAdkEvent, parseAdkEvent, parseContent } from '../../../src/adk/event-fast.ts'
import { Content, FunctionCall, FunctionResponse, Part } from '../../../src/adk/content.ts'
import { AdkEvent, EventActions } from '../../../src/adk/event.ts'
import { readShared, readSharedJson, sharedPath } from '../../support/shared-data.ts'
import { deepDiff, exact, mutate, rng, toSnake } from './event-mutations.ts'

type Vectors = { vectors: { events: unknown[] }[]; sse_event_json_samples_v2_0: unknown[] }

function sampleEvents(): { name: string; event: unknown }[] {
  const out: { name: string; event: unknown }[] = []
  for (const file of readdirSync(sharedPath('samples'))) {
    readShared('samples', file)
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .forEach((line, i) => out.push({ name: `${file}#${i}`, event: JSON.parse(line.slice(5)) }))
  }
  const vectors = readSharedJson<Vectors>('vectors', 'events_to_invocations.json')
  vectors.sse_event_json_samples_v2_0.forEach((event, i) => out.push({ name: `sse_event_json_samples_v2_0#${i}`, event }))
  vectors.vectors.forEach((v, i) => v.events.forEach((event, j) => out.push({ name: `vector ${i} event ${j}`, event })))
  return out
}

const SAMPLES = sampleEvents()
const ALL = [...SAMPLES, ...SAMPLES.map((s) => ({ name: `${s.name} (snake_case)`, event: toSnake(s.event) }))]

/** The fast path and the combined parser both agree with zod on this input. */
function checkAgainstZod(input: unknown): { fast: boolean; zodOk: boolean } {
  const zod = AdkEvent.safeParse(input)
  const fast = fastAdkEvent(input)
  if (fast !== undefined) {
    expect(zod.success).toBe(true)
    expect(deepDiff(fast, zod.data)).toBeUndefined()
    expect(exact(fast)).toBe(exact(zod.data))
    expect(fast).toStrictEqual(zod.data)
  }
  const combined = parseAdkEvent(input)
  expect(Object.keys(combined)).toEqual(Object.keys(zod))
  expect(combined.success).toBe(zod.success)
  if (zod.success) expect(deepDiff(combined.data, zod.data)).toBeUndefined()
  else expect(combined.error?.issues).toStrictEqual(zod.error.issues)
  return { fast: fast !== undefined, zodOk: zod.success }
}

describe('fastAdkEvent on real events', () => {
  it('has events to check (captures, vectors)', () => {
    expect(SAMPLES.length).toBeGreaterThan(30)
  })

  it.each(ALL)('$name: fast path answers, exactly as zod', ({ event }) => {
    const input = JSON.parse(JSON.stringify(event))
    expect(checkAgainstZod(input).fast).toBe(true)
  })
})

describe('fastAdkEvent against zod on seeded random mutations', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: 2,000 mutated events agree with zod`, () => {
      const random = rng(seed)
      const tally = { fast: 0, zodOk: 0, zodFail: 0 }
      for (let i = 0; i < 2000; i++) {
        const base = ALL[Math.floor(random() * ALL.length)]!.event
        const input = JSON.parse(mutate(base, random))
        const r = checkAgainstZod(input)
        if (r.fast) tally.fast++
        if (r.zodOk) tally.zodOk++
        else tally.zodFail++
      }
      // The mutations must exercise both sides, and the fast path must carry most valid events.
      expect(tally.zodFail).toBeGreaterThan(200)
      expect(tally.zodOk).toBeGreaterThan(200)
      expect(tally.fast).toBeGreaterThan(tally.zodOk * 0.7)
    })
  }
})

describe('fastAdkEvent edge cases', () => {
  const cases: { name: string; json: string; fast: boolean }[] = [
    { name: 'alias wins over snake_case', json: '{"invocationId":"a","invocation_id":"b"}', fast: true },
    { name: 'null field stays a present key', json: '{"author":null,"content":{"parts":[{"text":null}]}}', fast: true },
    { name: 'ms timestamp -> s', json: '{"timestamp":1760000000500}', fast: true },
    { name: 'seconds timestamp unchanged', json: '{"timestamp":1760000000.5}', fast: true },
    { name: "Infinity timestamp is zod's error", json: '{"timestamp":1e400}', fast: false },
    { name: '__proto__ key goes to zod', json: '{"__proto__":{"x":1},"author":"a"}', fast: false },
    { name: '__proto__ inside a record goes to zod', json: '{"actions":{"stateDelta":{"__proto__":1,"b":2}}}', fast: false },
    { name: "function call without a name is zod's error", json: '{"content":{"parts":[{"functionCall":{"args":{}}}]}}', fast: false },
    { name: 'function call with null name', json: '{"content":{"parts":[{"function_call":{"name":null}}]}}', fast: false },
    { name: 'unknown keys kept, numeric keys too', json: '{"2":1,"zz":{"a":[1]},"author":"x","1":0}', fast: true },
    { name: 'parts not an array', json: '{"content":{"parts":{"text":"x"}}}', fast: false },
    { name: 'wrong scalar type', json: '{"partial":"yes"}', fast: false },
  ]
  it.each(cases)('$name', ({ json, fast }) => {
    expect(checkAgainstZod(JSON.parse(json)).fast).toBe(fast)
  })

  it('gives up on objects that are not plain JSON data', () => {
    class Event {
      author = 'a'
    }
    expect(fastAdkEvent(new Event())).toBeUndefined()
    expect(fastAdkEvent(Object.create(null))).toBeUndefined()
    expect(fastAdkEvent([])).toBeUndefined()
    expect(parseAdkEvent(new Event())).toStrictEqual(AdkEvent.safeParse(new Event()))
  })

  it('reads each event afresh: nothing of the event read before (answered or given up) carries over', () => {
    const full = {
      id: 'x',
      invocationId: 'e-1',
      author: 'a',
      branch: 'b',
      partial: true,
      content: { role: 'model', parts: [{ text: 't' }] },
    }
    expect(fastAdkEvent(full)).toStrictEqual(AdkEvent.parse(full))
    // Gives up on its last field, after the fields before it were found.
    expect(fastAdkEvent({ ...full, usageMetadata: 3 })).toBeUndefined()
    const bare = { author: 'a', content: { parts: [{}] } }
    expect(fastAdkEvent(bare)).toStrictEqual(AdkEvent.parse(bare))
    expect(Object.keys(fastAdkEvent(bare)!)).toStrictEqual(['author', 'content'])
  })
})

/** parseContent agrees with Content.safeParse on this input (the OTLP mapping's model messages). */
function checkContentAgainstZod(input: unknown): boolean {
  const zod = Content.safeParse(input)
  const combined = parseContent(input)
  expect(combined.success).toBe(zod.success)
  if (zod.success) {
    expect(deepDiff(combined.data, zod.data)).toBeUndefined()
    expect(exact(combined.data)).toBe(exact(zod.data))
  } else expect(combined.error?.issues).toStrictEqual(zod.error.issues)
  return zod.success
}

describe('parseContent against zod', () => {
  const contentOf = (event: unknown) => (event as { content?: unknown } | null)?.content
  it('agrees on the content of every sample event, and on seeded random mutations of them', () => {
    const withContent = ALL.filter((s) => contentOf(s.event) !== undefined)
    expect(withContent.length).toBeGreaterThan(30)
    for (const { event } of withContent) expect(checkContentAgainstZod(JSON.parse(JSON.stringify(contentOf(event))))).toBe(true)
    const random = rng(5)
    const tally = { ok: 0, failed: 0 }
    for (let i = 0; i < 2000; i++) {
      const base = withContent[Math.floor(random() * withContent.length)]!.event
      const mutated = JSON.parse(mutate(base, random)) as { content?: unknown; contents?: unknown }
      if (checkContentAgainstZod(mutated?.content ?? mutated)) tally.ok++
      else tally.failed++
    }
    expect(tally.ok).toBeGreaterThan(200)
    expect(tally.failed).toBeGreaterThan(200)
  })
})

describe('one list of ADK event fields', () => {
  it('the fast path reads exactly the fields of the zod models, in the same order', () => {
    expect(FAST_MODEL_FIELDS).toEqual({
      event: AdkEvent.fieldNames,
      actions: EventActions.fieldNames,
      content: Content.fieldNames,
      part: Part.fieldNames,
      functionCall: FunctionCall.fieldNames,
      functionResponse: FunctionResponse.fieldNames,
    })
  })
})

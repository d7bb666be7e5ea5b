/**
 * The keyed trajectory matchers against the plain definition of ADK's matching (every call compared
 * with `callsEqual`, i.e. Python `==` on args), on random trajectories full of Python-equality
 * corner cases: 1 / 1.0 / True / 1n, False / 0 / -0, None / undefined, "1", bigints no double
 * equals, key order, NaN, and one NaN-holding object shared between calls (equal only to itself).
 * Covers: src/core/trajectory.ts, src/core/call-key.ts, src/core/trajectory-explainer.ts.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createCallKeyer } from '../../../src/core/call-key.ts'
import { pythonEqual } from '../../../src/core/python-equal.ts'
import { createTrajectoryExplainer, explainGrowing } from '../../../src/core/trajectory-explainer.ts'
import {
  callsEqual,
  createTrajectoryMatcher,
  explainTrajectory,
  finishMatcher,
  matchToolTrajectory,
  type MatchType,
  pushCall,
  type ToolCall,
} from '../../../src/core/trajectory.ts'

const SHARED_WITH_NAN = { x: Number.NaN }
const SHARED_ARRAY_WITH_NAN = [Number.NaN, 1]

const scalar = fc.constantFrom<unknown>(
  1,
  1.0,
  true,
  false,
  0,
  -0,
  2,
  0.5,
  null,
  undefined,
  '1',
  'a',
  1n,
  2n ** 53n + 1n,
  2n ** 53n,
  2 ** 53,
  Number.NaN,
  Infinity,
)
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.constantFrom<unknown>(SHARED_WITH_NAN, SHARED_ARRAY_WITH_NAN),
    fc.array(tie('value'), { maxLength: 3 }),
    // Few keys in random order, so permuted records are common.
    fc.uniqueArray(fc.tuple(fc.constantFrom('k', 'j', 'i'), tie('value')), { maxLength: 3, selector: ([k]) => k }).map((entries) =>
      Object.fromEntries(entries)
    ),
  ),
})).value
const call: fc.Arbitrary<ToolCall> = fc.record({
  name: fc.constantFrom('f', 'g'),
  args: fc.oneof(
    fc.constantFrom(undefined, null, {}, { n: 1 }, { n: true }, { n: 1n }, { n: Number.NaN }, SHARED_WITH_NAN),
    fc.dictionary(fc.constantFrom('n', 'm'), value, { maxKeys: 2 }),
  ) as fc.Arbitrary<ToolCall['args']>,
})
const calls = fc.array(call, { maxLength: 8 })
const matchType = fc.constantFrom<MatchType>('EXACT', 'IN_ORDER', 'ANY_ORDER')
const ignoreArgs = fc.boolean()

/** ADK's ANY_ORDER as the spec says it: each expected call removes the first equal unused actual call. */
function referenceAnyOrder(actual: readonly ToolCall[], expected: readonly ToolCall[], ignore: boolean) {
  const used = new Array<boolean>(actual.length).fill(false)
  const pairOf: number[] = []
  for (const want of expected) {
    const i = actual.findIndex((a, k) => !used[k] && callsEqual(a, want, { ignoreArgs: ignore }))
    if (i !== -1) used[i] = true
    pairOf.push(i)
  }
  return { match: pairOf.every((i) => i !== -1), pairOf, extra: actual.flatMap((_, k) => (used[k] ? [] : [k])) }
}

describe('call keys follow Python equality exactly', () => {
  it('same key exactly when callsEqual holds (random pairs, args and names only)', () => {
    fc.assert(
      fc.property(call, call, ignoreArgs, (a, b, ignore) => {
        const keyer = createCallKeyer()
        const ka = keyer(a, { ignoreArgs: ignore })
        const kb = keyer(b, { ignoreArgs: ignore })
        const equal = callsEqual(a, b, { ignoreArgs: ignore })
        expect(ka !== undefined && ka === kb).toBe(equal)
      }),
      { numRuns: 5000 },
    )
  })

  it('corner cases by hand: what Python calls equal shares a key, nothing else does', () => {
    const keyer = createCallKeyer()
    const key = (args: unknown) => keyer({ name: 'f', args: args as ToolCall['args'] })
    expect(key({ n: 1 })).toBe(key({ n: true }))
    expect(key({ n: 1 })).toBe(key({ n: 1n }))
    expect(key({ n: 0 })).toBe(key({ n: -0 }))
    expect(key({ n: false })).toBe(key({ n: 0 }))
    expect(key({ a: 1, b: [2, null] })).toBe(key({ b: [2.0, undefined], a: true }))
    expect(key({ n: 2n ** 53n + 1n })).not.toBe(key({ n: 2 ** 53 }))
    expect(key({ n: 2n ** 53n })).toBe(key({ n: 2 ** 53 }))
    expect(key({ n: '1' })).not.toBe(key({ n: 1 }))
    expect(key(null)).toBe(key(undefined))
    expect(key(null)).not.toBe(key({}))
    expect(key({ n: [1, 2] })).not.toBe(key({ n: [2, 1] }))
    expect(key(Number.NaN)).toBeUndefined()
    expect(key({ n: Number.NaN })).not.toBe(key({ n: Number.NaN }))
    // pythonEqual short-cuts on identity, so an object holding NaN equals itself only.
    expect(pythonEqual({ s: SHARED_WITH_NAN }, { s: SHARED_WITH_NAN })).toBe(true)
    expect(key({ s: SHARED_WITH_NAN })).toBe(key({ s: SHARED_WITH_NAN }))
    expect(key({ s: SHARED_WITH_NAN })).not.toBe(key({ s: { x: Number.NaN } }))
  })

  it('a key is built without recursion: args 100,000 levels deep', () => {
    const nest = (leaf: unknown) => {
      let deep = leaf
      for (let i = 0; i < 100_000; i++) deep = [deep]
      return deep
    }
    const keyer = createCallKeyer()
    expect(keyer({ name: 'f', args: { d: nest(1) } })).toBe(keyer({ name: 'f', args: { d: nest(true) } }))
    expect(keyer({ name: 'f', args: { d: nest(1) } })).not.toBe(keyer({ name: 'f', args: { d: nest(2) } }))
  })
})

describe('keyed matchers equal the plain definition', () => {
  it('matchToolTrajectory, explainTrajectory, the incremental matcher and explainer agree with the reference', () => {
    fc.assert(
      fc.property(calls, calls, matchType, ignoreArgs, (actual, expected, type, ignore) => {
        const options = { ignoreArgs: ignore }
        const why = explainTrajectory(actual, expected, type, options)
        const verdict = matchToolTrajectory(actual, expected, type, options)
        expect(why.match).toBe(verdict)
        const m = createTrajectoryMatcher(expected, type, options)
        for (const c of actual) pushCall(m, c)
        expect(finishMatcher(m)).toBe(verdict)
        const x = createTrajectoryExplainer(expected, type, options)
        const grown = explainGrowing(x, actual)
        expect(grown.match).toBe(verdict)
        expect([...grown.pairOf]).toEqual(expected.map((_, e) => why.matched.find((p) => p.expected === e)?.actual ?? -1))
        if (type !== 'ANY_ORDER') return
        const ref = referenceAnyOrder(actual, expected, ignore)
        expect(verdict).toBe(ref.match)
        expect([...grown.pairOf]).toEqual(ref.pairOf)
        expect(why.extra).toEqual(ref.extra)
      }),
      { numRuns: 3000 },
    )
  })
})

/**
 * The incremental explainer against explainTrajectory, on random calls fed in random growing
 * steps: the same verdict and the same pairing, missing and extra calls, for every match type.
 */
import { describe, expect, it } from 'vitest'
import { createTrajectoryExplainer, explainGrowing } from '../../../src/core/trajectory-explainer.ts'
import { explainTrajectory, type MatchType, type ToolCall } from '../../../src/core/trajectory.ts'
import { seededRandom } from '../../support/prng.ts'

/** Few names and args, so calls often repeat and match: that is where pairings differ if anything does. */
function randomCall(random: () => number): ToolCall {
  const name = ['a', 'b', 'c'][Math.floor(random() * 3)]!
  const n = Math.floor(random() * 3)
  // 1 and 1.0 are one value to Python ==, as to JavaScript; `true` is equal to 1 in Python too.
  const args = random() < 0.2 ? undefined : { n: random() < 0.1 ? true : n }
  return { name, args }
}

function batch(calls: readonly ToolCall[], expected: readonly ToolCall[], matchType: MatchType) {
  const why = explainTrajectory(calls, expected, matchType)
  return { match: why.match, matched: why.matched, missing: why.missing, extra: why.extra }
}

function incremental(x: ReturnType<typeof createTrajectoryExplainer>, calls: readonly ToolCall[]) {
  const why = explainGrowing(x, calls)
  const matched: Array<{ expected: number; actual: number }> = []
  const missing: number[] = []
  why.pairOf.forEach((a, e) => (a >= 0 ? matched.push({ expected: e, actual: a }) : missing.push(e)))
  return { match: why.match, matched, missing, extra: [...why.extra] }
}

describe('explainGrowing equals explainTrajectory', () => {
  for (const matchType of ['EXACT', 'IN_ORDER', 'ANY_ORDER'] as const) {
    it(`${matchType}: 500 random invocations, explained after every growth step`, () => {
      const random = seededRandom(matchType.length * 7919)
      for (let round = 0; round < 500; round++) {
        const expected = Array.from({ length: Math.floor(random() * 5) }, () => randomCall(random))
        const x = createTrajectoryExplainer(expected, matchType)
        const calls: ToolCall[] = []
        const total = Math.floor(random() * 12)
        while (calls.length < total) {
          const step = 1 + Math.floor(random() * 3)
          for (let i = 0; i < step && calls.length < total; i++) calls.push(randomCall(random))
          expect(incremental(x, calls)).toEqual(batch(calls, expected, matchType))
        }
      }
    })
  }

  it('starts over when handed a list that is not the last one grown', () => {
    const expected = [{ name: 'a' }, { name: 'b' }]
    const x = createTrajectoryExplainer(expected, 'IN_ORDER')
    expect(incremental(x, [{ name: 'a' }, { name: 'b' }]).match).toBe(true)
    const other = [{ name: 'b' }, { name: 'a' }]
    expect(incremental(x, other)).toEqual(batch(other, expected, 'IN_ORDER'))
    const shorter = [{ name: 'b' }]
    expect(incremental(x, shorter)).toEqual(batch(shorter, expected, 'IN_ORDER'))
  })
})

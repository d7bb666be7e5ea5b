/**
 * Cost of the trajectory matchers counted, not timed: Python `==` comparisons are counted through a
 * wrapped `pythonEqual`, and a comparison budget makes a quadratic matcher fail at once instead of
 * running for minutes. 20,000 expected calls against 20,000 pushed calls that never match (and then
 * 20,000 that all match, in reverse order) must cost O(calls), for every match type.
 * Covers: src/core/trajectory.ts (its cost).
 */
import { beforeEach, describe, expect, it, vi } from 'vitest'

const counter = vi.hoisted(() => ({ comparisons: 0, budget: Infinity }))
vi.mock('../../../src/core/python-equal.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/core/python-equal.ts')>()
  return {
    ...real,
    pythonEqual(a: unknown, b: unknown) {
      if (++counter.comparisons > counter.budget) throw new Error(`more than ${counter.budget} comparisons`)
      return real.pythonEqual(a, b)
    },
  }
})

const { createTrajectoryExplainer, explainGrowing } = await import('../../../src/core/trajectory-explainer.ts')
const { createTrajectoryMatcher, explainTrajectory, finishMatcher, matchToolTrajectory, pushCall } = await import(
  '../../../src/core/trajectory.ts'
)
type ToolCall = import('../../../src/core/trajectory.ts').ToolCall

const N = 20_000
const expected: ToolCall[] = Array.from({ length: N }, (_, i) => ({ name: 'lookup', args: { id: i, tags: ['a', i % 7] } }))
const strangers: ToolCall[] = Array.from({ length: N }, (_, i) => ({ name: 'lookup', args: { id: N + i, tags: ['a', i % 7] } }))
// Python-equal to the expected calls but not identical: floats and bools where ints were, keys reordered.
const reversedMatches: ToolCall[] = expected.map((_call, i) => ({
  name: 'lookup',
  args: { tags: ['a', i % 7 === 1 ? true : (i % 7) * 1.0], id: i },
})).reverse()

beforeEach(() => {
  counter.comparisons = 0
  counter.budget = 4 * N
})

describe('trajectory matching is linear: 20,000 expected x 20,000 pushed calls', () => {
  for (const matchType of ['EXACT', 'IN_ORDER', 'ANY_ORDER'] as const) {
    it(`${matchType}: incremental matcher, calls that never match`, () => {
      const m = createTrajectoryMatcher(expected, matchType)
      for (const call of strangers) pushCall(m, call)
      expect(finishMatcher(m)).toBe(false)
      expect(counter.comparisons).toBeLessThanOrEqual(N)
    })

    it(`${matchType}: explainer and batch matcher, calls that never match`, () => {
      expect(explainGrowing(createTrajectoryExplainer(expected, matchType), strangers).match).toBe(false)
      expect(matchToolTrajectory(strangers, expected, matchType)).toBe(false)
      expect(explainTrajectory(strangers, expected, matchType).missing).toHaveLength(N)
      expect(counter.comparisons).toBeLessThanOrEqual(3 * N)
    })
  }

  it('ANY_ORDER: every call matches, in reverse order, with Python-equal but not identical args', () => {
    const m = createTrajectoryMatcher(expected, 'ANY_ORDER')
    for (const call of reversedMatches) pushCall(m, call)
    expect(m.verdict).toBe('matched')
    expect(matchToolTrajectory(reversedMatches, expected, 'ANY_ORDER')).toBe(true)
    const growing = explainGrowing(createTrajectoryExplainer(expected, 'ANY_ORDER'), reversedMatches)
    expect(growing.paired).toBe(N)
    expect(growing.pairOf[0]).toBe(N - 1)
    expect(counter.comparisons).toBeLessThanOrEqual(N)
  })
})

import { describe, expect, it } from 'vitest'
import {
  createTrajectoryMatcher,
  explainTrajectory,
  finishMatcher,
  MATCH_TYPES,
  matchToolTrajectory,
  type MatchType,
  parseMatchType,
  pushCall,
  type ToolCall,
} from '../../../src/core/trajectory.ts'
import { readShared } from '../../support/shared-data.ts'

type Vector = {
  id: string
  match_type: MatchType
  invocations: Array<{ actual_calls: ToolCall[]; expected_calls: ToolCall[] }>
  expected: { per_invocation_scores: number[] }
}
/** The shared ADK vectors: a copy in test/fixtures/vectors if the repo has one, else the team's shared folder. */
function vectorFile(name: string): string {
  return readShared('vectors', name)
}
const FILE = JSON.parse(vectorFile('trajectory.json')) as {
  vectors: Vector[]
  match_type_parsing: Array<{ id: string; input: string; expected: string }>
}

const PAIRS = FILE.vectors.flatMap((v) =>
  v.invocations.map((inv, i) => ({
    name: `${v.id}#${i}`,
    matchType: v.match_type,
    ...inv,
    score: v.expected.per_invocation_scores[i]!,
  }))
)

/** Feed the calls one by one; return the verdict after each call and the final result. */
function incremental(actual: ToolCall[], expected: ToolCall[], matchType: MatchType, ignoreArgs = false) {
  const m = createTrajectoryMatcher(expected, matchType, { ignoreArgs })
  const verdicts = [m.verdict]
  for (const call of actual) verdicts.push(pushCall(m, call).verdict)
  return { verdicts, result: finishMatcher(m) }
}

describe('matchToolTrajectory on ADK vectors', () => {
  it.each(PAIRS)('$name', ({ actual_calls, expected_calls, matchType, score }) => {
    expect(matchToolTrajectory(actual_calls, expected_calls, matchType) ? 1 : 0).toBe(score)
    expect(explainTrajectory(actual_calls, expected_calls, matchType).match ? 1 : 0).toBe(score)
    expect(incremental(actual_calls, expected_calls, matchType).result ? 1 : 0).toBe(score)
  })
})

const call = (name: string, args?: Record<string, unknown> | null, id?: string): ToolCall => ({ name, args, id })

describe('ADK rules beyond the vectors', () => {
  it('zero expected calls: EXACT needs zero actual calls, the others always match', () => {
    expect(matchToolTrajectory([], [], 'EXACT')).toBe(true)
    expect(matchToolTrajectory([call('a', {})], [], 'EXACT')).toBe(false)
    expect(matchToolTrajectory([call('a', {})], [], 'IN_ORDER')).toBe(true)
    expect(matchToolTrajectory([call('a', {})], [], 'ANY_ORDER')).toBe(true)
    expect(createTrajectoryMatcher([], 'IN_ORDER').verdict).toBe('matched')
    expect(createTrajectoryMatcher([], 'EXACT').verdict).toBe('pending')
  })

  it('compares args with Python ==, ignores ids, and tells absent args from {}', () => {
    expect(matchToolTrajectory([call('f', { n: 1, b: [true] }, 'x')], [call('f', { b: [1.0], n: true })], 'EXACT')).toBe(true)
    expect(matchToolTrajectory([call('f')], [call('f', {})], 'EXACT')).toBe(false)
    expect(matchToolTrajectory([call('f', null)], [call('f')], 'EXACT')).toBe(true)
    expect(matchToolTrajectory([call('F', {})], [call('f', {})], 'EXACT')).toBe(false)
  })

  it('ignore_args compares names only, in every match type', () => {
    for (const matchType of MATCH_TYPES) {
      expect(matchToolTrajectory([call('f', { a: 1 })], [call('f', { a: 2 })], matchType, { ignoreArgs: true })).toBe(true)
      expect(matchToolTrajectory([call('f', { a: 1 })], [call('f', { a: 2 })], matchType)).toBe(false)
      expect(matchToolTrajectory([call('g', { a: 1 })], [call('f', { a: 1 })], matchType, { ignoreArgs: true })).toBe(false)
    }
  })

  it('IN_ORDER needs distinct occurrences for duplicates', () => {
    expect(matchToolTrajectory([call('a', {})], [call('a', {}), call('a', {})], 'IN_ORDER')).toBe(false)
    expect(matchToolTrajectory([call('a', {}), call('b', {}), call('a', {})], [call('a', {}), call('a', {})], 'IN_ORDER')).toBe(true)
  })
})

describe('explainTrajectory', () => {
  const [a, b, c, x] = [call('a', {}), call('b', {}), call('c', {}), call('x', {})]
  it('pairs IN_ORDER greedily and lists missing and extra calls', () => {
    expect(explainTrajectory([a, x, c, b], [a, b, c], 'IN_ORDER')).toEqual({
      match: false,
      matched: [{ expected: 0, actual: 0 }, { expected: 1, actual: 3 }],
      missing: [2],
      extra: [1, 2],
    })
  })
  it('pairs ANY_ORDER by first unused equal call and keeps listing after a miss', () => {
    expect(explainTrajectory([c, a, x], [a, b, c], 'ANY_ORDER')).toEqual({
      match: false,
      matched: [{ expected: 0, actual: 1 }, { expected: 2, actual: 0 }],
      missing: [1],
      extra: [2],
    })
  })
  it('pairs EXACT by position', () => {
    expect(explainTrajectory([a, b, x], [a, b], 'EXACT')).toEqual({
      match: false,
      matched: [{ expected: 0, actual: 0 }, { expected: 1, actual: 1 }],
      missing: [],
      extra: [2],
    })
  })
})

describe('incremental matcher', () => {
  const [a, b, c, x] = [call('a', { n: 1 }), call('b', {}), call('c', {}), call('x', {})]
  it('EXACT fails at the first divergent call, and at the first extra call', () => {
    expect(incremental([a, x, c], [a, b, c], 'EXACT').verdicts).toEqual(['pending', 'pending', 'failed', 'failed'])
    expect(incremental([a, b, x], [a, b], 'EXACT').verdicts).toEqual(['pending', 'pending', 'pending', 'failed'])
    expect(incremental([a, b], [a, b], 'EXACT')).toEqual({ verdicts: ['pending', 'pending', 'pending'], result: true })
    expect(incremental([a], [a, b], 'EXACT').result).toBe(false)
  })
  it('IN_ORDER and ANY_ORDER match as soon as every expected call has been seen', () => {
    expect(incremental([x, a, b, x], [a, b], 'IN_ORDER').verdicts).toEqual(['pending', 'pending', 'pending', 'matched', 'matched'])
    expect(incremental([b, x, a], [a, b], 'ANY_ORDER').verdicts).toEqual(['pending', 'pending', 'pending', 'matched'])
    expect(incremental([b, a], [a, b], 'IN_ORDER')).toEqual({ verdicts: ['pending', 'pending', 'pending'], result: false })
  })

  // Random trajectories over a small alphabet (so that duplicates, reorderings and near misses are
  // frequent): batch, explanation and incremental verdicts must agree, and a decided verdict must
  // be the final one.
  it('agrees with the batch matcher on 20,000 random trajectories', () => {
    let seed = 12345
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return (seed >>> 8) % n
    }
    const alphabet: ToolCall[] = [
      call('a', { n: 1 }),
      call('a', { n: 1.0 }),
      call('a', { n: 2 }),
      call('b'),
      call('b', {}),
      call('c', { l: [1, true] }),
      call('c', { l: [true, 1] }),
    ]
    for (let t = 0; t < 20_000; t++) {
      const expected = Array.from({ length: rand(4) }, () => alphabet[rand(alphabet.length)]!)
      const actual = Array.from({ length: rand(6) }, () => alphabet[rand(alphabet.length)]!)
      const matchType = MATCH_TYPES[rand(3)]!
      const ignoreArgs = rand(4) === 0
      const batch = matchToolTrajectory(actual, expected, matchType, { ignoreArgs })
      expect(explainTrajectory(actual, expected, matchType, { ignoreArgs }).match).toBe(batch)
      const { verdicts, result } = incremental(actual, expected, matchType, ignoreArgs)
      expect(result).toBe(batch)
      const first = verdicts.findIndex((v) => v !== 'pending')
      if (first >= 0) {
        expect(verdicts.slice(first).every((v) => v === verdicts[first])).toBe(true)
        expect(verdicts[first] === 'matched').toBe(batch)
        // Every prefix decided this way decides the full batch result too.
        expect(matchToolTrajectory(actual.slice(0, first), expected, matchType, { ignoreArgs }) || matchType === 'EXACT').toBe(true)
      }
    }
  })
})

describe('parseMatchType', () => {
  it.each(FILE.match_type_parsing)('$id: $input', ({ input, expected }) => {
    const parsed = parseMatchType(input)
    if (expected === 'VALIDATION_ERROR') expect(parsed.ok).toBe(false)
    else expect(parsed).toEqual({ ok: true, matchType: expected })
  })
  it('takes the enum values 0/1/2 and rejects everything else with a message', () => {
    expect(parseMatchType(0)).toEqual({ ok: true, matchType: 'EXACT' })
    expect(parseMatchType(1)).toEqual({ ok: true, matchType: 'IN_ORDER' })
    expect(parseMatchType(2)).toEqual({ ok: true, matchType: 'ANY_ORDER' })
    for (const bad of [3, -1, 1.5, true, null, {}, 'INORDER', 'in  order', '']) {
      const parsed = parseMatchType(bad)
      expect(parsed.ok).toBe(false)
      if (!parsed.ok) expect(parsed.error).toMatch(/EXACT, IN_ORDER, ANY_ORDER/)
    }
  })
  it("strips Python's whitespace set, not JavaScript's", () => {
    expect(parseMatchType('\x1c any order \x85')).toEqual({ ok: true, matchType: 'ANY_ORDER' })
    // U+FEFF is whitespace to String.prototype.trim but not to Python's str.strip.
    expect(parseMatchType('\ufeffEXACT').ok).toBe(false)
  })
})

describe('parseMatchType on hostile values (found by bench/fuzz.ts)', () => {
  it('describes an object without calling its toString (a `toString` key that is not a function throws)', () => {
    expect(parseMatchType(JSON.parse('{"toString": 1}'))).toEqual({
      ok: false,
      error: 'match_type an object is not one of EXACT, IN_ORDER, ANY_ORDER (or 0, 1, 2)',
    })
    expect(parseMatchType([1])).toMatchObject({ ok: false, error: expect.stringContaining('an array') })
  })
})

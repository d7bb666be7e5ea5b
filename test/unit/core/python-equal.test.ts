import { describe, expect, it } from 'vitest'
import { pythonEqual } from '../../../src/core/python-equal.ts'

/**
 * [a, b, what Python's `a == b` gives]. Rows were checked against CPython 3.11 (undefined written
 * as None, bigint as int). The NaN-in-container rows follow NaN != NaN: CPython's containers
 * compare identical objects as equal, so `[x] == [x]` holds for one NaN object, but JSON gives
 * evalstream no object identity (and standard JSON has no NaN at all).
 */
const CASES: Array<[unknown, unknown, boolean]> = [
  [1, 1.0, true],
  [1, true, true],
  [0, false, true],
  [1.0, true, true],
  [2, true, false],
  [-0, 0, true],
  [-0, false, true],
  [Number.NaN, Number.NaN, false],
  [[Number.NaN], [Number.NaN], false],
  [{ x: Number.NaN }, { x: Number.NaN }, false],
  [0.1 + 0.2, 0.3, false],
  [null, null, true],
  [null, undefined, true],
  [undefined, undefined, true],
  [null, {}, false],
  [undefined, {}, false],
  [null, 0, false],
  [null, false, false],
  [null, '', false],
  [null, [], false],
  [{}, {}, true],
  [[], [], true],
  [{}, [], false],
  ['1', 1, false],
  ['true', true, false],
  ['', false, false],
  ['a', 'a', true],
  ['a', 'A', false],
  [{ a: 1, b: 2 }, { b: 2, a: 1 }, true],
  [{ a: 1 }, { a: 1, b: null }, false],
  [{ a: null }, { b: null }, false],
  [{ a: 1, b: 2 }, { a: 1, c: 2 }, false],
  [[1, 2], [2, 1], false],
  [[1, 2], [1, 2, 3], false],
  [[1, [true, { k: 0 }]], [1.0, [1, { k: false }]], true],
  [{ q: { r: [1, 2, { s: 'x' }] } }, { q: { r: [1, 2, { s: 'x' }] } }, true],
  [{ q: { r: [1, 2, { s: 'x' }] } }, { q: { r: [1, 2, { s: 'y' }] } }, false],
  [[null], [undefined], true],
  [[null], [], false],
  [1e308 * 10, Number.POSITIVE_INFINITY, true],
  [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, false],
  [2n ** 53n + 1n, 2 ** 53, false],
  [2n ** 53n, 2 ** 53, true],
  [1n, true, true],
  [3n, 3.5, false],
  [{ __proto__x: 1 }, { __proto__x: 1 }, true],
]

describe('pythonEqual', () => {
  it.each(CASES.map((row, i) => [i, ...row] as const))('row %i', (_i, a, b, expected) => {
    expect(pythonEqual(a, b)).toBe(expected)
    // Python's == is symmetric on these types.
    expect(pythonEqual(b, a)).toBe(expected)
  })

  it('compares keys named like Object.prototype members as plain keys', () => {
    const a = JSON.parse('{"__proto__": {"x": 1}, "constructor": 1}')
    const b = JSON.parse('{"constructor": 1, "__proto__": {"x": 1.0}}')
    expect(pythonEqual(a, b)).toBe(true)
    expect(pythonEqual(a, JSON.parse('{"constructor": 1}'))).toBe(false)
    expect(pythonEqual({ toString: 1 }, {})).toBe(false)
  })
})

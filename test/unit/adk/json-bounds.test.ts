/**
 * The iterative walks over untrusted JSON values. findJsonBoundsViolation is checked against the
 * raw-text scan in json-scan.test.ts; here, findLongList.
 */
import { describe, expect, it } from 'vitest'
import { findLongList } from '../../../src/adk/json-bounds.ts'

describe('findLongList', () => {
  it('finds nothing in a list of exactly the limit, and the first longer one with its path', () => {
    expect(findLongList({ a: [1, 2, 3] }, 3)).toBeUndefined()
    expect(findLongList({ a: [1, 2, 3] }, 2)).toEqual({ path: '$.a', items: 3 })
    expect(findLongList([1, 2, 3], 2)).toEqual({ path: '$', items: 3 })
    expect(findLongList({ 'odd key': [{ b: [[0, 0, 0]] }] }, 2)).toEqual({ path: '$["odd key"][0].b[0]', items: 3 })
  })

  it('ignores scalars and walks 100,000 levels without recursion', () => {
    expect(findLongList('x'.repeat(10), 1)).toBeUndefined()
    expect(findLongList(null, 1)).toBeUndefined()
    let deep: unknown = [1, 2]
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(findLongList(deep, 1)?.items).toBe(2)
  })
})

/**
 * Bar heights of the dashboard's charts: pass rates on an absolute 0-100% axis (a 60% bucket is 60%
 * high even when it is the tallest), counts and values against the tallest bar.
 */
import { describe, expect, it } from 'vitest'
import { rateHeight, relativeHeights } from '../../../../src/http/dashboard/browser/bar-heights.ts'

describe('rateHeight', () => {
  it('is the rate in percent of the axis, whatever the other buckets are', () => {
    expect(rateHeight(0.6)).toBe(60)
    expect(rateHeight(0.5)).toBe(50)
    expect(rateHeight(1)).toBe(100)
    expect(rateHeight(2 / 3)).toBe(66.7)
  })
  it('draws nothing for an empty bucket and a 0% bucket at 0 (the page marks the two apart)', () => {
    expect(rateHeight(null)).toBe(0)
    expect(rateHeight(undefined)).toBe(0)
    expect(rateHeight(0)).toBe(0)
  })
  it('clamps what cannot be a rate into the axis', () => {
    expect(rateHeight(1.5)).toBe(100)
    expect(rateHeight(-0.2)).toBe(0)
    expect(rateHeight(Number.NaN)).toBe(0)
  })
})

describe('relativeHeights', () => {
  it('scales counts to the tallest', () => {
    expect(relativeHeights([1, 2, 4])).toEqual([25, 50, 100])
  })
  it('draws all-zero, negative and non-finite values at 0 rather than dividing by zero', () => {
    expect(relativeHeights([0, 0])).toEqual([0, 0])
    expect(relativeHeights([-1, Number.POSITIVE_INFINITY, 3])).toEqual([0, 0, 100])
    expect(relativeHeights([])).toEqual([])
  })
})

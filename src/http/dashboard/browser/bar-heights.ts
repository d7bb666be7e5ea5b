/**
 * Bar heights, in percent of the chart's height. Rates are drawn on an absolute 0-100% axis, so a
 * 60% bucket is 60% high whatever the other buckets are; counts and informational values have no
 * fixed top and are drawn against the tallest bar. Pure (no DOM), so it is unit-tested directly.
 */

/** A pass rate (0..1, or null for an empty bucket) to its height on the 0-100% axis. */
export function rateHeight(rate: number | null | undefined): number {
  if (rate === null || rate === undefined || !Number.isFinite(rate)) return 0
  return Math.round(Math.min(1, Math.max(0, rate)) * 1000) / 10
}

/** Values with no fixed top (counts, seconds, tokens), against the tallest one. */
export function relativeHeights(values: readonly number[]): number[] {
  const finite = values.map((v) => (Number.isFinite(v) && v > 0 ? v : 0))
  const max = Math.max(0, ...finite)
  return finite.map((v) => (max === 0 ? 0 : Math.round((v / max) * 1000) / 10))
}

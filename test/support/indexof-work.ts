/**
 * Work counted, not timed: the characters `String.prototype.indexOf` examines on long strings while
 * a test runs. A plain wrapper, restored when the test finishes: a vitest spy would record every
 * call of every indexOf in the worker (hundreds of thousands per test) and cost the test seconds.
 */
import { onTestFinished } from 'vitest'

/**
 * Counts from now to the end of the calling test, for strings at least `minLength` long (the text
 * under test, not a parser's small internal strings).
 * @example const work = countIndexOfWork(text.length); scan(text); expect(work.scanned).toBeLessThanOrEqual(2 * text.length)
 */
export function countIndexOfWork(minLength: number): { scanned: number } {
  const work = { scanned: 0 }
  const real = String.prototype.indexOf
  String.prototype.indexOf = function (this: string, search: string, position?: number): number {
    const found = real.call(this, search, position)
    if (this.length >= minLength) work.scanned += (found === -1 ? this.length : found + search.length) - (position ?? 0)
    return found
  }
  onTestFinished(() => {
    String.prototype.indexOf = real
  })
  return work
}

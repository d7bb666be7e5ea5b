/**
 * Python's `==` on JSON values, which is how ADK compares tool-call arguments
 * (`actual.args == expected.args` on plain dicts decoded from JSON).
 *
 * What Python does and a naive deep-equal gets wrong:
 * - numbers compare by value across int and float, and `bool` is an int: `1 == 1.0 == True`,
 *   `False == 0`, `-0.0 == 0`; NaN never equals anything, itself included;
 * - `None` equals only `None`; in evalstream both JSON `null` and an absent value (`undefined`)
 *   stand for `None` (ADK reads `"args": null` and a missing `args` the same way), and neither
 *   equals `{}`, `[]`, `0`, `false` or `""`;
 * - dicts compare by key set and values, key order free; lists element by element, in order;
 * - a string never equals a number (`"1" != 1`).
 *
 * Known limits: CPython containers treat the very same object as equal to itself, so a dict holding
 * one NaN object equals itself there; JSON values have no identity, so NaN is never equal here
 * (standard JSON cannot carry NaN anyway). Integers beyond 2^53 are already rounded by `JSON.parse`, so two large integers
 * that Python tells apart may compare equal here. Pass `bigint`s to keep them exact.
 */
import { isRecord } from '../adk/json.ts'

/** A Python number as seen by `==`: bool is the int 0/1. */
function numericValue(value: unknown): number | bigint | undefined {
  if (typeof value === 'number' || typeof value === 'bigint') return value
  if (typeof value === 'boolean') return value ? 1 : 0
  return undefined
}

function numbersEqual(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b
  // Mixed bigint/number: Python compares int and float exactly, never via float rounding.
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b
  const n = (typeof a === 'number' ? a : b) as number
  const big = (typeof a === 'bigint' ? a : b) as bigint
  return Number.isInteger(n) && BigInt(n) === big
}

/** One comparison of scalars, or the pairs of children to compare next when both are containers. */
function compareShallow(a: unknown, b: unknown, pending: unknown[]): boolean {
  // Same primitive or same object. NaN is not === to itself and falls through to the numeric test.
  if (a === b) return true
  if (a === null || a === undefined) return b === null || b === undefined
  if (b === null || b === undefined) return false
  const ta = typeof a
  const tb = typeof b
  if (ta === 'string' || tb === 'string') return false // equal strings were caught by a === b
  const na = numericValue(a)
  if (na !== undefined) {
    const nb = numericValue(b)
    return nb !== undefined && numbersEqual(na, nb)
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) pending.push(a[i], b[i])
    return true
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a)
    if (keys.length !== Object.keys(b).length) return false
    for (const key of keys) {
      if (!Object.hasOwn(b, key)) return false
      pending.push(a[key], b[key])
    }
    return true
  }
  return false
}

/**
 * Deep equality with Python `==` semantics on JSON-like values. Iterative (an explicit list of
 * pairs still to compare), so tool arguments of any depth cost heap, never stack.
 * @example
 * pythonEqual({ a: [1, true] }, { a: [1.0, 1] }) // true
 * pythonEqual(undefined, {})                     // false: None != {}
 */
export function pythonEqual(a: unknown, b: unknown): boolean {
  const pending: unknown[] = [a, b]
  while (pending.length > 0) {
    const right = pending.pop()
    const left = pending.pop()
    if (!compareShallow(left, right, pending)) return false
  }
  return true
}

/**
 * An iterative check of a parsed JSON value against nesting-depth and string-length bounds. Every
 * untrusted value goes through it right after `JSON.parse` (which is iterative in V8) and before
 * anything recursive walks it: zod, `JSON.stringify`, Python `==`, the pydantic writers. Those then
 * never meet a value deeper than the bound, so they cannot overflow the stack.
 */

export type JsonBounds = {
  /** Containers (objects, arrays) nested deeper than this are refused; the top value is depth 1. */
  maxJsonDepth: number
  /** Strings (values and keys) longer than this, in UTF-16 code units, are refused. */
  maxStringLength: number
}

/** Where a value broke a bound: `path` like `$.content.parts[0].functionCall.args`. */
export type JsonBoundsViolation =
  | { kind: 'depth'; path: string; depth: number }
  | { kind: 'string'; path: string; length: number }

/** One container on the walk; `parent` and `key` rebuild the path only when a bound is broken. */
type Frame = { value: object; depth: number; parent: Frame | undefined; key: string | number }

function pathOf(frame: Frame | undefined, last?: string | number): string {
  const keys: (string | number)[] = last === undefined ? [] : [last]
  for (let f = frame; f?.parent !== undefined; f = f.parent) keys.push(f.key)
  let out = '$'
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!
    out += typeof key === 'number' ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key.slice(0, 80))}]`
  }
  return out
}

/**
 * One child of a container: a string is checked, a container queued (a function of its own, not a
 * closure made per container: this runs on every event of every upload).
 */
function visitChild(
  frame: Frame,
  child: unknown,
  key: string | number,
  bounds: JsonBounds,
  stack: Frame[],
): JsonBoundsViolation | undefined {
  if (typeof child === 'string') {
    if (child.length > bounds.maxStringLength) return { kind: 'string', path: pathOf(frame, key), length: child.length }
  } else if (typeof child === 'object' && child !== null) {
    const next: Frame = { value: child, depth: frame.depth + 1, parent: frame, key }
    if (next.depth > bounds.maxJsonDepth) return { kind: 'depth', path: pathOf(next), depth: next.depth }
    stack.push(next)
  }
  return undefined
}

/**
 * The first place `value` breaks `bounds`, or undefined. Iterative: any depth costs heap, not stack.
 * @example
 * findJsonBoundsViolation(JSON.parse('{"a":[[1]]}'), { maxJsonDepth: 2, maxStringLength: 10 }) // { kind: 'depth', path: '$.a[0]', depth: 3 }
 */
export function findJsonBoundsViolation(value: unknown, bounds: JsonBounds): JsonBoundsViolation | undefined {
  if (typeof value === 'string') {
    return value.length > bounds.maxStringLength ? { kind: 'string', path: '$', length: value.length } : undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: '' }]
  if (bounds.maxJsonDepth < 1) return { kind: 'depth', path: '$', depth: 1 }
  while (stack.length > 0) {
    const frame = stack.pop()!
    if (Array.isArray(frame.value)) {
      const items = frame.value as unknown[]
      for (let i = 0; i < items.length; i++) {
        const found = visitChild(frame, items[i], i, bounds, stack)
        if (found) return found
      }
    } else {
      const record = frame.value as Record<string, unknown>
      for (const key in record) {
        if (!Object.hasOwn(record, key)) continue
        if (key.length > bounds.maxStringLength) return { kind: 'string', path: pathOf(frame, key), length: key.length }
        const found = visitChild(frame, record[key], key, bounds, stack)
        if (found) return found
      }
    }
  }
  return undefined
}

/** Where a list held more items than allowed: `path` like `$[0].expected_tool_use`. */
export type LongListViolation = { path: string; items: number }

/**
 * The first array in `value` with more than `maxItems` items, or undefined. Iterative, and it
 * stops at the first one found: checking a bad value costs one walk, whatever checks come after.
 * @example findLongList(JSON.parse('{"a":[1,2,3]}'), 2) // { path: '$.a', items: 3 }
 */
export function findLongList(value: unknown, maxItems: number): LongListViolation | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: '' }]
  const queue = (frame: Frame, child: unknown, key: string | number) => {
    if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: frame.depth + 1, parent: frame, key })
  }
  while (stack.length > 0) {
    const frame = stack.pop()!
    if (Array.isArray(frame.value)) {
      const items = frame.value as unknown[]
      if (items.length > maxItems) return { path: pathOf(frame), items: items.length }
      for (let i = 0; i < items.length; i++) queue(frame, items[i], i)
    } else {
      const record = frame.value as Record<string, unknown>
      for (const key in record) if (Object.hasOwn(record, key)) queue(frame, record[key], key)
    }
  }
  return undefined
}

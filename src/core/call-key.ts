/**
 * A canonical text key for a tool call such that two calls get the same key exactly when ADK's
 * call equality (`callsEqual`: name `===`, args Python `==` as `pythonEqual` implements it) holds.
 * Matchers then find "the first unused equal call" with a hash lookup instead of a deep comparison
 * against every call, so a pushed call costs time linear in its own size, whatever the call count.
 *
 * How the key follows `pythonEqual`:
 * - every number-like value (number, bigint, boolean) is written as the double it equals (`true`
 *   as 1, `-0` as 0); a bigint that no double equals keeps its exact digits under another tag, so
 *   `1 == 1.0 == True == 1n` share a key and `2**53+1` (bigint) matches no double;
 * - `null` and `undefined` are both None; strings are tagged apart from numbers (`"1" != 1`);
 * - record keys are sorted (order free), arrays keep their order; `{a: undefined}` keeps its key;
 * - NaN equals nothing, so a call whose args are NaN gets no key; a container holding NaN equals
 *   only the very same object (`pythonEqual` short-cuts on identity, as CPython does), so its key is
 *   that object's identity number. Any other value (function, symbol) is keyed by identity too.
 * Built iteratively: args of any depth cost heap, not stack.
 */
import { isRecord } from '../adk/json.ts'
import type { MatchOptions, ToolCall } from './tool-call.ts'

/** Keys calls; identity numbers are per keyer, so keys from one keyer are only compared with each other. */
export type CallKeyer = (call: ToolCall, options?: MatchOptions) => string | undefined

/** A container being written: its sorted keys (records), the next child, where its text starts, and whether a NaN inside poisons it. */
type Open = { value: object; array: boolean; keys: string[] | undefined; next: number; start: number; poisoned: boolean }

/** @example const key = createCallKeyer(); key({ name: 'f', args: { n: 1 } }) === key({ name: 'f', args: { n: true } }) // true */
export function createCallKeyer(): CallKeyer {
  const ids = new WeakMap<object, number>()
  const symbolIds = new Map<symbol, number>()
  let nextId = 0
  const identity = (value: object | symbol): string => {
    const table = typeof value === 'symbol' ? symbolIds : ids
    let id = (table as Map<object | symbol, number>).get(value)
    if (id === undefined) {
      id = nextId++
      ;(table as Map<object | symbol, number>).set(value, id)
    }
    return `#${id}`
  }

  /** The key of a value, or undefined when it equals nothing (NaN). */
  function valueKey(root: unknown): string | undefined {
    const scalar = scalarKey(root)
    if (scalar !== undefined) return scalar
    if (typeof root === 'number') return undefined // NaN
    if (!Array.isArray(root) && !isRecord(root)) return identity(root as object | symbol)
    let out = ''
    const stack: Open[] = []
    const open = (value: object) => {
      const array = Array.isArray(value)
      stack.push({ value, array, keys: array ? undefined : Object.keys(value).sort(), next: 0, start: out.length, poisoned: false })
      out += array ? '[' : '{'
    }
    open(root)
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      const size = top.array ? (top.value as unknown[]).length : top.keys!.length
      if (top.next === size) {
        stack.pop()
        // NaN inside: equal only to this very object (pythonEqual's identity short-cut).
        out = top.poisoned ? out.slice(0, top.start) + identity(top.value) : out + (top.array ? ']' : '}')
        continue
      }
      let child: unknown
      if (top.array) {
        child = (top.value as unknown[])[top.next++]
        out += ','
      } else {
        const key = top.keys![top.next++]!
        child = (top.value as Record<string, unknown>)[key]
        out += `${JSON.stringify(key)}:`
      }
      const childKey = scalarKey(child)
      if (childKey !== undefined) out += childKey
      else if (typeof child === 'number') top.poisoned = true // NaN
      else if (Array.isArray(child) || isRecord(child)) open(child)
      else out += identity(child as object | symbol)
    }
    return out
  }

  return (call, options) => {
    const name = nameKey(call.name, identity)
    if (name === undefined) return undefined
    if (options?.ignoreArgs === true) return name
    const args = valueKey(call.args)
    return args === undefined ? undefined : `${name}(${args}`
  }
}

/** Scalars other than NaN; undefined for NaN and for containers and other objects. */
function scalarKey(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'N'
  switch (typeof value) {
    case 'string':
      return `s${JSON.stringify(value)}`
    case 'boolean':
      return value ? 'n1' : 'n0'
    case 'number':
      // String() is unique per double and writes -0 as "0"; NaN is left to the caller.
      return Number.isNaN(value) ? undefined : `n${String(value)}`
    case 'bigint': {
      const near = Number(value)
      return Number.isFinite(near) && BigInt(near) === value ? `n${String(near)}` : `b${value}`
    }
    default:
      return undefined
  }
}

/** Names compare with `===`: no Python numeric equality, NaN never equal. */
function nameKey(name: unknown, identity: (value: object | symbol) => string): string | undefined {
  if (typeof name === 'string') return JSON.stringify(name)
  if (typeof name === 'number') return Number.isNaN(name) ? undefined : `#n${String(name)}`
  if (typeof name === 'object' && name !== null) return identity(name)
  if (typeof name === 'function' || typeof name === 'symbol') return identity(name)
  return `#${typeof name}:${String(name)}`
}

/** Unused indices of a list of calls, by key, each bucket in ascending order: the first equal unused call in O(1). */
export type CallBuckets = Map<string, { indices: number[]; head: number }>

/** @example const b = bucketCalls(calls, keyer) */
export function bucketCalls(calls: readonly ToolCall[], keyer: CallKeyer, options?: MatchOptions): CallBuckets {
  const buckets: CallBuckets = new Map()
  for (let i = 0; i < calls.length; i++) {
    const key = keyer(calls[i]!, options)
    if (key === undefined) continue
    const bucket = buckets.get(key)
    if (bucket === undefined) buckets.set(key, { indices: [i], head: 0 })
    else bucket.indices.push(i)
  }
  return buckets
}

/** Remove and return the lowest unused index whose call equals `call`, or -1. */
export function takeFirstEqual(buckets: CallBuckets, keyer: CallKeyer, call: ToolCall, options?: MatchOptions): number {
  const key = keyer(call, options)
  if (key === undefined) return -1
  const bucket = buckets.get(key)
  if (bucket === undefined || bucket.head === bucket.indices.length) return -1
  return bucket.indices[bucket.head++]!
}

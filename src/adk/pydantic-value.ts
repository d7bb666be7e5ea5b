/**
 * `JSON.parse(writePydanticJson(value, spec))` without the text in between.
 *
 * The engine emits the case result in ADK's file shape (statuses as 1/2/3, declared fields present
 * as null, field order as pydantic writes it) by writing pydantic JSON and parsing it back. For a
 * long session that round trip is most of the end of the session (2,000 invocations: ~400 ms to
 * write 15 MB of indented JSON, ~75 ms to parse it). This walks the same spec and builds the same
 * value directly. What the text would change, this changes too: float formatting disappears on
 * parsing, so numbers stay numbers, except that non-finite numbers become null and a whole -0
 * outside float fields becomes 0. test/unit/adk/pydantic-value.test.ts compares it with the round trip.
 */
import { statusCode } from './status.ts'
import type { JsonSpec } from './pydantic-json.ts'
import { isRecord } from './json.ts'

/** `out[key] = value`, except that a `__proto__` key becomes an own property, as JSON.parse makes it. */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  else out[key] = value
}

/** writeAny, parsed back: a free-form value (dict, Any). */
function anyValue(value: unknown): unknown {
  if (value === null || value === undefined) return null
  // Whole numbers are written as ints (so -0 as "0"); others as round-trip floats; NaN/inf as null.
  if (typeof value === 'number') return Number.isFinite(value) ? (value === 0 ? 0 : value) : null
  if (typeof value === 'string' || typeof value === 'boolean') return value
  if (Array.isArray(value)) return value.map(anyValue)
  if (isRecord(value)) {
    const out: Record<string, unknown> = {}
    // for-in with an own-key check reads Object.keys' keys in its order without making its array.
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue
      const v = value[k]
      if (v !== undefined) put(out, k, anyValue(v))
    }
    return out
  }
  const text = JSON.stringify(value)
  return text === undefined ? null : (JSON.parse(text) as unknown)
}

type Convert = (value: unknown) => unknown

// Specs are compiled once into converters: the spec-kind checks and the set of declared keys are
// not redone for each of the thousands of objects a long session's case result has.
const compiled = new WeakMap<object, Convert>()

function converter(spec: JsonSpec): Convert {
  if (spec === 'any') return anyValue
  if (spec === 'float') return floatValue
  if (spec === 'status') return statusValue
  let convert = compiled.get(spec)
  if (convert === undefined) {
    convert = compile(spec)
    compiled.set(spec, convert)
  }
  return convert
}

function floatValue(value: unknown): unknown {
  if (value === null || value === undefined) return null
  return typeof value === 'number' ? (Number.isFinite(value) ? value : null) : anyValue(value)
}

function statusValue(value: unknown): unknown {
  if (value === null || value === undefined) return null
  if (typeof value !== 'string') return anyValue(value)
  return statusCode(value)
}

function compile(spec: Exclude<JsonSpec, string>): Convert {
  if ('pick' in spec) {
    return (
      value,
    ) => (value === null || value === undefined ? null : isRecord(value) ? converter(spec.pick(value))(value) : anyValue(value))
  }
  if ('array' in spec || 'tuple' in spec) {
    const item = 'array' in spec ? converter(spec.array) : undefined
    const items = 'tuple' in spec ? spec.tuple.map(converter) : []
    return (value) => {
      if (value === null || value === undefined) return null
      if (!Array.isArray(value)) return anyValue(value)
      return value.map((v, i) => (item ?? items[i] ?? anyValue)(v))
    }
  }
  if ('record' in spec) {
    const convertValue = converter(spec.record)
    return (value) => {
      if (value === null || value === undefined) return null
      if (!isRecord(value)) return anyValue(value)
      const out: Record<string, unknown> = {}
      for (const k in value) if (Object.hasOwn(value, k)) put(out, k, convertValue(value[k]))
      return out
    }
  }
  const keys = spec.fields.map(([key]) => key)
  const converts = spec.fields.map(([, fieldSpec]) => converter(fieldSpec))
  const known = new Set(keys)
  return (value) => {
    if (value === null || value === undefined) return null
    if (!isRecord(value)) return anyValue(value)
    const out: Record<string, unknown> = {}
    for (let i = 0; i < keys.length; i++) put(out, keys[i]!, converts[i]!(value[keys[i]!]))
    // Keys the spec does not declare follow the declared ones, as the writer puts them.
    for (const key in value) {
      if (known.has(key) || !Object.hasOwn(value, key)) continue
      const v = value[key]
      if (v !== undefined) put(out, key, anyValue(v))
    }
    return out
  }
}

/**
 * @example pydanticJsonValue({ a: 1, s: 'PASSED' }, { fields: [['a', 'float'], ['s', 'status'], ['b', 'any']] }) // { a: 1, s: 1, b: null }
 */
export function pydanticJsonValue(value: unknown, spec: JsonSpec): unknown {
  return converter(spec)(value)
}

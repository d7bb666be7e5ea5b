/**
 * A JSON writer that produces what pydantic's `model_dump_json(indent=2)` produces, given a
 * description of the model (field order and which fields are floats). JavaScript has one number
 * type, so the description says where pydantic would write `1.0` rather than `1`.
 *
 * Facts (checked by running pydantic 2.13.4 / pydantic-core 2.46.4):
 * - indent 2, `"key": value`, `[]` and `{}` for empty containers, no trailing newline;
 * - strings escaped like JSON.stringify (non-ASCII written as is, control characters as \u00XX);
 * - floats: shortest round-trip digits; positional from 1e-5 up to (not including) 1e16, with
 *   `.0` on whole numbers; exponent form outside that (`1e-6`, `1.5e-7`, `1e+16`); NaN/inf as null.
 */
import { isRecord } from './json.ts'
import { statusCode } from './status.ts'

/** How to write one value. */
export type JsonSpec =
  | 'float'
  | 'any'
  | 'status'
  | { fields: readonly (readonly [string, JsonSpec])[] }
  | { array: JsonSpec }
  | { tuple: readonly JsonSpec[] }
  | { record: JsonSpec }
  | { pick: (value: Record<string, unknown>) => JsonSpec }

/** Largest decimal-point position written positionally (1e16 switches to exponent form). */
const MAX_POSITIONAL = 16
/** Smallest: 0.00001 is positional, 0.000001 is 1e-6. */
const MIN_POSITIONAL = -5

/**
 * A float as pydantic-core writes it in JSON.
 * @example pydanticFloat(1) // '1.0'
 * @example pydanticFloat(1e-6) // '1e-6'
 */
export function pydanticFloat(value: number): string {
  if (!Number.isFinite(value)) return 'null'
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0'
  const sign = value < 0 ? '-' : ''
  // toExponential() without digits gives the shortest round-trip digits, like ryu.
  const [mantissa = '', exp = '0'] = Math.abs(value).toExponential().split('e')
  const digits = mantissa.replace('.', '')
  const point = Number(exp) + 1 // position of the decimal point relative to the digits
  let body: string
  if (point > MIN_POSITIONAL && point <= MAX_POSITIONAL) {
    if (point <= 0) body = `0.${'0'.repeat(-point)}${digits}`
    else if (point >= digits.length) body = `${digits}${'0'.repeat(point - digits.length)}.0`
    else body = `${digits.slice(0, point)}.${digits.slice(point)}`
  } else {
    const e = point - 1
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : ''
    body = `${digits[0]}${frac}e${e < 0 ? '-' : '+'}${Math.abs(e)}`
  }
  return sign + body
}

/** A number in a free-form value (dict, Any): whole numbers as ints, others as floats. */
function anyNumber(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < Number.MAX_SAFE_INTEGER ? String(value) : pydanticFloat(value)
}

function block(open: string, close: string, items: string[], indent: string): string {
  if (items.length === 0) return open + close
  const inner = `${indent}  `
  return `${open}\n${inner}${items.join(`,\n${inner}`)}\n${indent}${close}`
}

function writeAny(value: unknown, indent: string): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'number') return anyNumber(value)
  if (Array.isArray(value)) {
    return block(
      '[',
      ']',
      value.map((v) => writeAny(v, `${indent}  `)),
      indent,
    )
  }
  if (isRecord(value)) {
    const items = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${writeAny(v, `${indent}  `)}`)
    return block('{', '}', items, indent)
  }
  return JSON.stringify(value) ?? 'null'
}

/**
 * Writes `value` as described by `spec`, starting at the given indentation.
 * @example writePydanticJson({ a: 1 }, { fields: [['a', 'float'], ['b', 'any']] }) // '{\n  "a": 1.0,\n  "b": null\n}'
 */
export function writePydanticJson(value: unknown, spec: JsonSpec, indent = ''): string {
  if (value === null || value === undefined) return 'null'
  const deeper = `${indent}  `
  if (spec === 'any') return writeAny(value, indent)
  if (spec === 'float') return typeof value === 'number' ? pydanticFloat(value) : writeAny(value, indent)
  if (spec === 'status') return typeof value === 'string' ? String(statusCode(value)) : writeAny(value, indent)
  if ('pick' in spec) return isRecord(value) ? writePydanticJson(value, spec.pick(value), indent) : writeAny(value, indent)
  if ('array' in spec || 'tuple' in spec) {
    if (!Array.isArray(value)) return writeAny(value, indent)
    const items = value.map((v, i) => writePydanticJson(v, 'array' in spec ? spec.array : (spec.tuple[i] ?? 'any'), deeper))
    return block('[', ']', items, indent)
  }
  if (!isRecord(value)) return writeAny(value, indent)
  if ('record' in spec) {
    const items = Object.entries(value).map(
      ([k, v]) => `${JSON.stringify(k)}: ${writePydanticJson(v, spec.record, deeper)}`,
    )
    return block('{', '}', items, indent)
  }
  const known = new Set<string>()
  const items: string[] = []
  for (const [key, fieldSpec] of spec.fields) {
    known.add(key)
    items.push(`${JSON.stringify(key)}: ${writePydanticJson(value[key], fieldSpec, deeper)}`)
  }
  // Keys the description does not know (extra="allow" models) follow the declared ones, as in pydantic.
  for (const [key, v] of Object.entries(value)) {
    if (!known.has(key) && v !== undefined) items.push(`${JSON.stringify(key)}: ${writeAny(v, deeper)}`)
  }
  return block('{', '}', items, indent)
}

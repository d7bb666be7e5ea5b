/**
 * Attribute lists as both decoders build them, under the attribute limits: how many per item, how
 * long a string, how deeply arrays and kvlists nest. A broken limit names the attribute's key.
 */
import type { Attributes, AttrValue } from './model.ts'
import { MAX_OTLP_ATTRIBUTE_KEY_LENGTH, otlpLimitName, type OtlpLimits } from './limits.ts'

/** An attribute (or the body) that broke a limit or is malformed; `key` says which. */
export class AttributeError extends Error {
  readonly key: string
  constructor(key: string, message: string) {
    super(`attribute '${key}': ${message}`)
    this.key = key
  }
}

export type AttributeLimits = Pick<OtlpLimits, 'maxAttributes' | 'maxAttributeValueLength' | 'maxValueDepth'>

/** Collects one item's attributes, counting them and keeping the last value of a repeated key. */
export class AttributeCollector {
  readonly attributes: Attributes = {}
  readonly limits: AttributeLimits
  #count = 0
  constructor(limits: AttributeLimits) {
    this.limits = limits
  }

  add(key: string, value: AttrValue): void {
    if (++this.#count > this.limits.maxAttributes) {
      throw new AttributeError(key, `more than ${this.limits.maxAttributes} attributes (${otlpLimitName('maxAttributes', this.limits)})`)
    }
    if (key.length > MAX_OTLP_ATTRIBUTE_KEY_LENGTH) {
      throw new AttributeError(`${key.slice(0, 80)}…`, `key longer than ${MAX_OTLP_ATTRIBUTE_KEY_LENGTH} characters`)
    }
    this.attributes[key] = value
  }
}

/** A string value, checked against the value length limit. */
export function checkedString(key: string, value: string, limits: AttributeLimits): string {
  if (value.length > limits.maxAttributeValueLength) {
    throw new AttributeError(
      key,
      `value of ${value.length} characters is over ${otlpLimitName('maxAttributeValueLength', limits)}`,
    )
  }
  return value
}

/** Depth check for a nested array / kvlist value; the attribute itself is level 1. */
export function checkDepth(key: string, depth: number, limits: AttributeLimits): void {
  if (depth > limits.maxValueDepth) {
    throw new AttributeError(key, `value nested deeper than ${otlpLimitName('maxValueDepth', limits)}`)
  }
}

/**
 * An int64 as a number; beyond 2^53 it keeps its digits as a string rather than lose precision.
 * @example int64Value('42') // 42
 */
export function int64Value(raw: string | number | bigint): number | string {
  const n = typeof raw === 'number' ? raw : Number(raw)
  return Number.isSafeInteger(n) ? n : String(raw)
}

/** A value as a number (int64 kept as a string included), or undefined. */
export function attrNumber(value: AttrValue | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value)
  return undefined
}

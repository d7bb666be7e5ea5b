/**
 * JSON.parse behind the raw-text bounds check (json-scan.ts): what every untrusted JSON text that
 * is parsed whole (create and run bodies, agent answers) goes through.
 */
import type { JsonBounds } from './json-bounds.ts'
import { type RawBoundsViolation, scanJsonBounds } from './json-scan.ts'

export type BoundedParse = { ok: true; value: unknown } | { ok: false; reason: 'bounds'; violation: RawBoundsViolation } | {
  ok: false
  reason: 'invalid_json'
  message: string
}

/**
 * JSON.parse, only after the raw text passed the bounds: a body out of bounds is never parsed.
 * @example parseJsonWithin('[[[1]]]', { maxJsonDepth: 2, maxStringLength: 9 }) // { ok: false, reason: 'bounds', violation: { kind: 'depth', path: '$[0][0]', … } }
 */
export function parseJsonWithin(text: string, bounds: JsonBounds): BoundedParse {
  const violation = scanJsonBounds(text, bounds)
  if (violation) return { ok: false, reason: 'bounds', violation }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (error) {
    return { ok: false, reason: 'invalid_json', message: (error as Error).message }
  }
}

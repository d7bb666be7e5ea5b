/**
 * A user message as `/run_sse` expects it. Eval sets store Content in snake_case (what ADK's
 * Python writes), while ADK's JS and Go servers read camelCase only (`functionResponse`,
 * `inlineData`); Python reads both. Field names are converted two levels deep (a part, and the
 * object inside it); values that are user data (call args, tool responses, text) are kept as they are.
 */
import { toCamel } from '../adk/casing.ts'
import type { Content } from '../adk/content.ts'
import { isRecord } from '../adk/json.ts'

/** Inside these part fields the values are user data: their keys are names, not fields. */
const OPAQUE = new Set(['args', 'response'])

function renameKeys(value: Record<string, unknown>, inner: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    const name = toCamel(key)
    out[name] = inner && isRecord(v) && !OPAQUE.has(key) && !OPAQUE.has(name) ? renameKeys(v, false) : v
  }
  return out
}

/**
 * @example
 * wireContent({ role: 'user', parts: [{ function_response: { name: 'f', response: { a_b: 1 } } }] })
 * // { role: 'user', parts: [{ functionResponse: { name: 'f', response: { a_b: 1 } } }] }
 */
export function wireContent(content: Content): Record<string, unknown> {
  const out: Record<string, unknown> = { role: content.role ?? 'user' }
  for (const [key, value] of Object.entries(content)) {
    if (key === 'role') continue
    out[toCamel(key)] = key === 'parts' && Array.isArray(value) ? value.map((p) => (isRecord(p) ? renameKeys(p, true) : p)) : value
  }
  return out
}

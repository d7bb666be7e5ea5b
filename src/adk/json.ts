/** Small facts about parsed JSON values, shared by every layer (src/adk is the bottom one). */

/**
 * A JSON object: not null, not an array. The one copy every module uses.
 * @example isRecord({ a: 1 }) // true; isRecord([1]) // false; isRecord(null) // false
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * One copy of the identifiers every event of a run repeats (its author, its invocation id, the
 * names of the tools it calls), shared instead of one per event: V8's JSON.parse makes a new
 * string for every value longer than about ten characters, and a session keeps its events, so a
 * 50-invocation session of the load bench held 200 copies of its agent's name alone.
 *
 * Bounded: strings longer than MAX_INTERNED_CHARS are returned as they are, and the table starts
 * over once it holds MAX_INTERNED_STRINGS, so hostile input (a new name per event) costs at most
 * that many short strings, never a growing table.
 */

/** Distinct strings the table holds at most before it starts over. */
export const MAX_INTERNED_STRINGS = 8_192
/** Longer strings are not interned (identifiers are short; text is not worth looking up). */
export const MAX_INTERNED_CHARS = 128

const table = new Map<string, string>()

/**
 * @example intern(JSON.parse('"weather_agent"')) === intern(JSON.parse('"weather_agent"')) // the same string, one copy
 */
export function intern(value: string): string {
  if (value.length > MAX_INTERNED_CHARS) return value
  const known = table.get(value)
  if (known !== undefined) return known
  if (table.size >= MAX_INTERNED_STRINGS) table.clear()
  table.set(value, value)
  return value
}

/** Strings the table holds right now (at most MAX_INTERNED_STRINGS). */
export function internedCount(): number {
  return table.size
}

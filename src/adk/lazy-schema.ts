/**
 * Schemas built on their first use instead of when their module loads. zod builds a schema eagerly
 * and not cheaply (every object, field and check is an instance with its own setup), and a process
 * that loads the whole app (a Worker above all, on every cold start) paid for all of them before it
 * could answer anything, though most are needed by few requests or none (the OpenAPI document's).
 *
 * The result is a real zod schema (`z.lazy`), so it composes, parses and converts to JSON Schema as
 * the schema it wraps, with the same issues and messages; its first parse builds it, once.
 */
import * as z from 'zod'

/**
 * @example
 * export const Rubric = lazySchema(() => z.object({ rubric_id: z.string() }))
 * Rubric.parse({ rubric_id: 'r1' }) // built here, on first use
 */
export function lazySchema<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  let built: T | undefined
  // Memoised here as well as by zod, so `unwrap()` (which calls the getter) returns the same schema.
  return z.lazy(() => (built ??= build()))
}

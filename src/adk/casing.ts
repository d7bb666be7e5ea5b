/**
 * ADK's pydantic models accept each field under its snake_case name or its camelCase alias
 * (`alias_generator=to_camel, populate_by_name=True`), and differ in what they do with unknown keys.
 * `adkObject` reproduces that with zod: aliases are renamed to the snake_case field name before
 * validation, so the rest of evalstream sees one spelling, the one ADK writes to files.
 */
import * as z from 'zod'
import { isRecord } from './json.ts'
import { lazySchema } from './lazy-schema.ts'

/** What a model does with keys it does not know: pydantic's `extra` setting. */
export type ExtraKeys = 'forbid' | 'allow' | 'ignore'

/**
 * What `adkObject` builds: the model's object schema behind the alias renaming, and its field names.
 * Its type lists the declared fields whatever `extra` says: unknown keys a model keeps are kept as
 * they are, not typed.
 */
export type AdkObject<Shape extends z.ZodRawShape> =
  & z.ZodPreprocess<z.ZodObject<Shape, z.core.$strip>>
  & { fieldNames: readonly (keyof Shape & string)[] }

/**
 * An exported ADK model's schema: it parses to `T` and lists the fields it declares.
 */
export type AdkModel<T> = z.ZodType<T> & { readonly fieldNames: readonly (keyof T & string)[] }

/** `function_call` -> `functionCall` (pydantic's `to_camel`). */
export function toCamel(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}

/** Rename camelCase aliases of known fields to their snake_case names; other keys are left as they are. */
export function renameAliases(input: unknown, fieldNames: readonly string[]): unknown {
  if (!isRecord(input)) return input
  const aliasToField = new Map<string, string>()
  for (const field of fieldNames) {
    const alias = toCamel(field)
    if (alias !== field) aliasToField.set(alias, field)
  }
  let renamed: Record<string, unknown> | undefined
  for (const key of Object.keys(input)) {
    const field = aliasToField.get(key)
    if (field === undefined) continue
    renamed ??= { ...input }
    // pydantic prefers the alias when both spellings are present; so do we.
    renamed[field] = input[key]
    delete renamed[key]
  }
  return renamed ?? input
}

/** The object schema behind an ADK model, by its `extra` setting. */
function modelObject<Shape extends z.ZodRawShape>(shape: Shape, extra: ExtraKeys): z.ZodObject<Shape, z.core.$strip> {
  return (extra === 'forbid' ? z.strictObject(shape) : extra === 'allow' ? z.looseObject(shape) : z.object(shape)) as z.ZodObject<
    Shape,
    z.core.$strip
  >
}

/**
 * A zod object for an ADK model: accepts snake_case or camelCase keys, outputs snake_case.
 * @example
 * const Rubric = adkObject({ rubric_id: z.string() }, 'forbid')
 * Rubric.parse({ rubricId: 'r1' }) // { rubric_id: 'r1' }
 */
export function adkObject<Shape extends z.ZodRawShape>(shape: Shape, extra: ExtraKeys): AdkObject<Shape> {
  const fieldNames = Object.keys(shape)
  // The field names ride along, so code that reads the same models another way (event-fast.ts)
  // can be checked against this one list.
  return Object.assign(
    z.preprocess((input) => renameAliases(input, fieldNames), modelObject(shape, extra)),
    { fieldNames: fieldNames as readonly (keyof Shape & string)[] },
  )
}

/** What `lazyAdkObject` builds: `adkObject`'s alias renaming in front of an object schema made on first use. */
export type LazyAdkObject<Shape extends z.ZodRawShape> =
  & z.ZodPreprocess<z.ZodLazy<z.ZodObject<Shape, z.core.$strip>>>
  & { readonly fieldNames: readonly (keyof Shape & string)[] }

/**
 * `adkObject` whose object schema is built on first use (lazy-schema.ts): the shape is a function,
 * called then, and so are the field names. The renaming stays in front, where adkObject has it:
 * zod's JSON Schema looks through a preprocess, not through a lazy, for whether a field that holds
 * this model is required.
 * @example
 * const Rubric = lazyAdkObject(() => ({ rubric_id: z.string() }), 'forbid')
 * Rubric.parse({ rubricId: 'r1' }) // { rubric_id: 'r1' }
 */
export function lazyAdkObject<Shape extends z.ZodRawShape>(shape: () => Shape, extra: ExtraKeys): LazyAdkObject<Shape> {
  const object = lazySchema(() => modelObject(shape(), extra))
  let fieldNames: (keyof Shape & string)[] | undefined
  const names = () => (fieldNames ??= Object.keys(object.unwrap().shape) as (keyof Shape & string)[])
  const model = z.preprocess((input) => renameAliases(input, names()), object)
  return Object.defineProperty(model, 'fieldNames', { get: names, enumerable: true }) as LazyAdkObject<Shape>
}

/**
 * A field that may be missing or JSON `null` (how migrated ADK files spell "absent"); both come
 * out as `undefined`, and the key is optional in the inferred type so hand-built values type-check.
 * @example z.object({ args: optionalField(z.record(z.string(), z.unknown())) }).parse({ args: null }) // { args: undefined }
 */
export function optionalField<T extends z.ZodType>(schema: T): z.ZodPreprocess<z.ZodOptional<T>> {
  return z.preprocess((value) => (value === null ? undefined : value), schema.optional())
}

import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { adkObject, lazyAdkObject } from '../../../src/adk/casing.ts'
import { lazySchema } from '../../../src/adk/lazy-schema.ts'

describe('lazySchema', () => {
  it('builds the schema on its first use, once', () => {
    let builds = 0
    const Point = lazySchema(() => {
      builds++
      return z.object({ x: z.number() })
    })
    expect(builds).toBe(0)
    expect(Point.parse({ x: 1 })).toEqual({ x: 1 })
    expect(Point.safeParse({ x: 'a' }).success).toBe(false)
    expect(Point.unwrap()).toBe(Point.unwrap())
    expect(builds).toBe(1)
  })

  it('reports the issues of the schema it wraps, with the same paths and messages', () => {
    const eager = z.object({ a: z.array(z.number()) })
    const lazy = lazySchema(() => z.object({ a: z.array(z.number()) }))
    const input = { a: [1, 'two'] }
    expect(lazy.safeParse(input).error?.issues).toEqual(eager.safeParse(input).error?.issues)
  })
})

describe('lazyAdkObject', () => {
  const shape = () => ({ rubric_id: z.string(), score: z.number().optional() })

  it('parses as adkObject does: aliases renamed, the same issues', () => {
    const eager = adkObject(shape(), 'forbid')
    const lazy = lazyAdkObject(shape, 'forbid')
    for (const input of [{ rubricId: 'r1', score: 1 }, { rubric_id: 'r1' }, { rubricId: 1 }, { rubric_id: 'r', extra: true }, null]) {
      const [a, b] = [eager.safeParse(input), lazy.safeParse(input)]
      expect(b.success).toBe(a.success)
      expect(b.data).toEqual(a.data)
      expect(b.error?.issues).toEqual(a.error?.issues)
    }
  })

  it('lists its field names without being parsed first', () => {
    expect(lazyAdkObject(shape, 'allow').fieldNames).toEqual(['rubric_id', 'score'])
  })

  it('leaves a field that holds it required in JSON Schema, as adkObject does', () => {
    // zod reads a field's optionality through a preprocess but not through z.lazy: the renaming
    // stays outside the lazy part, or this field would be documented as optional.
    const holder = (inner: z.ZodType) => z.toJSONSchema(z.object({ rubric: inner }), { io: 'input', unrepresentable: 'any' })
    expect(holder(lazyAdkObject(shape, 'forbid'))).toEqual(holder(adkObject(shape(), 'forbid')))
    expect(holder(lazyAdkObject(shape, 'forbid')).required).toEqual(['rubric'])
  })
})

/**
 * pydanticJsonValue / evalCaseResultValue must equal parsing what the pydantic JSON writer writes:
 * on ADK's own result file, on hand-made specs of every kind, and on seeded random mutations
 * (odd numbers, unknown statuses, missing and extra keys, `__proto__`, nested free-form values).
 */
import { describe, expect, it } from 'vitest'
import { type JsonSpec, writePydanticJson } from '../../../src/adk/pydantic-json.ts'
import { pydanticJsonValue } from '../../../src/adk/pydantic-value.ts'
import { evalCaseResultJson, evalCaseResultValue, readEvalSetResult } from '../../../src/adk/results-json.ts'
import type { EvalCaseResult } from '../../../src/adk/results.ts'
import { readShared } from '../../support/shared-data.ts'
import { deepDiff, exact, rng } from './event-mutations.ts'

const roundTrip = (value: unknown, spec: JsonSpec) => JSON.parse(writePydanticJson(value, spec)) as unknown

// Not toStrictEqual: it compares `.constructor`, which a mutation may set as an own key.
function expectSame(actual: unknown, expected: unknown): void {
  expect(deepDiff(actual, expected)).toBeUndefined()
  expect(exact(actual)).toBe(exact(expected))
}

function caseResults(): EvalCaseResult[] {
  const read = readEvalSetResult(readShared('adk-fixtures', 'generated__weather_agent_weather_set.evalset_result.json'))
  if (!read.ok) throw new Error('fixture did not load')
  return read.result.eval_case_results
}

const ODD_NUMBERS = [-0, 0, 1, -1, 0.1, 1e-7, 1e-5, 1e16, 1e21, 2 ** 53, 2 ** 53 - 1, NaN, Infinity, -Infinity, 0.30000000000000004]
const ODD_VALUES: unknown[] = [
  ...ODD_NUMBERS,
  'PASSED',
  'FAILED',
  'NOT_EVALUATED',
  'other',
  '',
  'é\u2028😀',
  true,
  null,
  undefined,
  [],
  {},
  [1, undefined, -0],
  { a: undefined, b: { c: [NaN] } },
  JSON.parse('{"__proto__": {"x": 1}, "y": 2}'),
]

type Random = () => number
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!

/** Replace a few values anywhere in a structured clone, and add or delete some keys. */
function mutate(value: unknown, random: Random): unknown {
  const copy = structuredClone(value)
  const nodes: (Record<string, unknown> | unknown[])[] = []
  const walk = (v: unknown) => {
    if (typeof v !== 'object' || v === null) return
    nodes.push(v as Record<string, unknown>)
    for (const x of Object.values(v)) walk(x)
  }
  walk(copy)
  for (let n = 0; n < 1 + Math.floor(random() * 4); n++) {
    const node = pick(random, nodes)
    const keys = Object.keys(node)
    const op = random()
    if (Array.isArray(node)) node[Math.floor(random() * (node.length + 1))] = pick(random, ODD_VALUES)
    else if (op < 0.5 && keys.length > 0) node[pick(random, keys)] = structuredClone(pick(random, ODD_VALUES))
    else if (op < 0.7 && keys.length > 0) delete node[pick(random, keys)]
    else {
      const key = pick(random, ['__proto__', 'extra', 'score', 'eval_status', '0', 'constructor'])
      Object.defineProperty(node, key, {
        value: structuredClone(pick(random, ODD_VALUES)),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
  }
  return copy
}

describe('evalCaseResultValue equals JSON.parse(evalCaseResultJson(...))', () => {
  const results = caseResults()

  it('has ADK case results to check', () => expect(results.length).toBeGreaterThan(0))

  it.each(results.map((r) => [r.eval_id, r] as const))('fixture case %s', (_, result) => {
    expectSame(evalCaseResultValue(result), JSON.parse(evalCaseResultJson(result)))
  })

  it.each([1, 2, 3])('500 seeded mutations, seed %i', (seed) => {
    const random = rng(seed)
    for (let i = 0; i < 500; i++) {
      const mutated = mutate(pick(random, results), random) as EvalCaseResult
      expectSame(evalCaseResultValue(mutated), JSON.parse(evalCaseResultJson(mutated)))
    }
  })
})

describe('pydanticJsonValue on every kind of spec', () => {
  const spec: JsonSpec = {
    fields: [
      ['f', 'float'],
      ['s', 'status'],
      ['a', 'any'],
      ['arr', { array: 'float' }],
      ['tup', { tuple: ['float', 'status'] }],
      ['rec', { record: { fields: [['x', 'float']] } }],
      ['choice', { pick: (v) => ('n' in v ? { fields: [['n', 'float']] } : 'any') }],
    ],
  }
  const random = rng(7)
  const values = Array.from({ length: 2000 }, () => {
    const any = () => pick(random, ODD_VALUES)
    return {
      f: any(),
      s: any(),
      a: any(),
      arr: random() < 0.8 ? [any(), any()] : any(),
      tup: random() < 0.8 ? [any(), any(), any()] : any(),
      rec: random() < 0.8 ? { k1: { x: any(), y: any() }, k2: any() } : any(),
      choice: random() < 0.5 ? { n: any() } : { m: any() },
      [pick(random, ['extra', 'zz', '1'])]: any(),
    }
  })

  it('2,000 random values agree with the writer', () => {
    for (const value of values) expectSame(pydanticJsonValue(value, spec), roundTrip(value, spec))
  })

  it('keeps -0 in float fields and writes it as 0 elsewhere, as the text would', () => {
    expect(Object.is(pydanticJsonValue(-0, 'float'), -0)).toBe(true)
    expect(Object.is(pydanticJsonValue(-0, 'any'), 0)).toBe(true)
    expect(pydanticJsonValue(NaN, 'float')).toBeNull()
  })
})

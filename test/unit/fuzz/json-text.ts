/**
 * Hostile JSON, generated as text (not as values) so it can hold what JSON.stringify never
 * writes: numbers like 1e400, lone surrogate escapes, duplicate and `__proto__` keys, nesting far
 * deeper than any recursive walker survives, strings and arrays near and past the size limits.
 * Shapes come from real ADK data (the recorded /run_sse sample, the weather eval set and config)
 * with one spot replaced, so the generated input gets past the first type check and deep into
 * the parsers.
 */
import { readFileSync } from 'node:fs'
import fc from 'fast-check'

const fixture = (path: string) => readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8')

/** The real events of the recorded weather run: starting points for mutations. */
export const SAMPLE_EVENTS: Record<string, unknown>[] = fixture('shared/samples/adk-js-weather.sse')
  .split('\n')
  .filter((line) => line.startsWith('data: '))
  .map((line) => JSON.parse(line.slice(6)))
export const SAMPLE_EVAL_SET: Record<string, unknown> = JSON.parse(fixture('weather.evalset.json'))
export const SAMPLE_CONFIG: Record<string, unknown> = JSON.parse(fixture('weather.test_config.json'))
const SAMPLE_CASE = (SAMPLE_EVAL_SET.eval_cases as Record<string, unknown>[])[0]!

/** Keys the parsers look at, and keys that attack plain-object handling. */
const KEYS = [
  ...['author', 'invocationId', 'invocation_id', 'id', 'timestamp', 'content', 'parts', 'role', 'text', 'thought'],
  ...['functionCall', 'function_call', 'functionResponse', 'args', 'response', 'name', 'partial', 'turnComplete'],
  ...['actions', 'stateDelta', 'error', 'errorMessage', 'errorCode', 'events', 'usageMetadata', 'longRunningToolIds'],
  ...['eval_case', 'eval_cases', 'eval_set', 'eval_set_id', 'eval_id', 'eval_config', 'session_id', 'conversation'],
  ...['user_content', 'final_response', 'intermediate_data', 'tool_uses', 'criteria', 'threshold', 'match_type'],
  ...['judge_model_options', 'num_samples', 'rubrics', 'metrics', 'query', 'expected_tool_use', 'reference'],
  ...['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', ''],
]
const key = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) })

/**
 * Any Unicode scalar value as a one-character string: what `fc.string({ unit: 'binary' })` draws,
 * from the same numbers in the same order (code points below the surrogates, then those above),
 * so a seed gives the same strings. fast-check's own unit maps a string back to its number through
 * a table of all 1.1 million, which `fc.string` builds when it is created: 1.2 s of CPU on every
 * import of this file. Here the way back is arithmetic.
 */
const SURROGATES = 0x800
const binaryUnit: fc.Arbitrary<string> = fc.nat({ max: 0x10ffff - SURROGATES }).map(
  (n) => String.fromCodePoint(n < 0xd800 ? n : n + SURROGATES),
  (char) => {
    const code = typeof char === 'string' ? char.codePointAt(0) : undefined
    if (code === undefined || String.fromCodePoint(code) !== char || (code >= 0xd800 && code < 0xe000)) {
      throw new Error('not one Unicode scalar value')
    }
    return code < 0xd800 ? code : code - SURROGATES
  },
)

/** Number literals JSON.parse accepts but that are not what they look like. */
const NUMBERS = [
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '0.1e999999',
  '123456789012345678901234567890',
  '1E+308',
  '5e-324',
  '1.0',
  '9007199254740993',
]
/** String literals with escapes that are valid JSON but not valid Unicode, or control characters. */
const ODD_STRINGS = ['"\\ud800"', '"\\udc00x"', '"\\u0000"', '"\\ud83d\\ude00"', '"\\u202e"', '"\\\\"', '""']

const leaf: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '0', '1', ...NUMBERS, ...ODD_STRINGS),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.string({ unit: binaryUnit, maxLength: 30 }).map((s) => JSON.stringify(s)),
  fc.constantFrom(...KEYS).map((k) => JSON.stringify(k)),
)

/** Any JSON value of modest size, as text. */
export const jsonValueText: fc.Arbitrary<string> = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(fc.tuple(key, tie('value')), { maxLength: 6 })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
})).value

/** Nesting past any recursion limit, balanced or not, with a value at the bottom. */
export const deepText: fc.Arbitrary<string> = fc
  .record({
    depth: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 2_000 }) }, {
      weight: 1,
      arbitrary: fc.constantFrom(10_000, 20_000, 100_000),
    }),
    kind: fc.constantFrom('array', 'object', 'args', 'mixed'),
    inner: leaf,
    balanced: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  })
  .map(({ depth, kind, inner, balanced }) => {
    const [open, close] = kind === 'array'
      ? ['[', ']']
      : kind === 'object'
      ? ['{"a":', '}']
      : kind === 'args'
      ? ['{"args":', '}']
      : ['[{"x":', '}]']
    return open.repeat(depth) + inner + (balanced ? close.repeat(depth) : close.repeat(depth >> 1))
  })

/** A size: mostly small, sometimes right around a limit or far past it. */
const sizeNear = (typical: number, ...edges: number[]) =>
  fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: typical }) }, { weight: 1, arbitrary: fc.constantFrom(...edges) })

/** Big strings and arrays around the 1 MB per-event limit, and very many small items. */
export const bigText: fc.Arbitrary<string> = fc.oneof(
  sizeNear(20_000, 999_990, 1_000_010, 1_200_000).map((n) => `"${'x'.repeat(n)}"`),
  sizeNear(20_000, 300_000, 600_000).map((n) => `[${'0,'.repeat(n)}0]`),
  sizeNear(2_000, 20_000, 60_000).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`),
  sizeNear(5_000, 200_000).map((n) => `"${'\\u00e9'.repeat(n)}"`),
)

/** Text that is not JSON at all, or almost JSON. */
export const brokenText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: binaryUnit, maxLength: 200 }),
  jsonValueText.chain((t) => fc.nat({ max: Math.max(0, t.length) }).map((cut) => t.slice(0, cut))),
  fc.constantFrom('{', '[', '"', '{"a":}', 'NaN', 'Infinity', 'undefined', "{'a':1}", '[1,]', '{"a":1,}', '\u0000', '\ufeff{}'),
)

/** Any hostile value text, weighted toward the cheap ones. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 20, arbitrary: jsonValueText },
  { weight: 4, arbitrary: brokenText },
  { weight: 2, arbitrary: deepText },
  { weight: 1, arbitrary: bigText },
)

const MARK = '\u0000fuzz-mark\u0000'
/** Stands in for the new key while the copy is a JS value (`__proto__` cannot be assigned). */
const NEW_KEY = '\u0000fuzz-key\u0000'

/** Every spot in a value where a mutation can go: existing entries, and a new key on each object. */
function spots(value: unknown, path: Array<string | number> = [], out: Array<Array<string | number>> = []) {
  out.push(path)
  if (Array.isArray(value)) value.forEach((v, i) => spots(v, [...path, i], out))
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) spots(v, [...path, k], out)
    out.push([...path, `\u0001new`])
  }
  return out
}

/** `template` as JSON text with the spot `pick` chooses replaced by `text` (or a key added). */
export function splice(template: unknown, pick: number, text: string, newKey = 'extra'): string {
  const all = spots(template)
  const path = all[pick % all.length]!
  if (path.length === 0) return text
  const copy = structuredClone(template) as Record<string | number, unknown>
  let node: Record<string | number, unknown> = copy
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>
  const last = path[path.length - 1]!
  node[last === '\u0001new' ? NEW_KEY : last] = MARK
  return JSON.stringify(copy).replace(JSON.stringify(NEW_KEY), () => JSON.stringify(newKey)).replace(JSON.stringify(MARK), () => text)
}

/** `template` as JSON text with the value at `path` replaced by `text`. */
export function spliceAt(template: unknown, path: Array<string | number>, text: string): string {
  const copy = structuredClone(template) as Record<string | number, unknown>
  let node: Record<string | number, unknown> = copy
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>
  node[path[path.length - 1]!] = MARK
  return JSON.stringify(copy).replace(JSON.stringify(MARK), () => text)
}

/** The places the engine walks into most: tool call arguments, tool responses, answer text. */
const DEEP_SPOTS: Array<[number, Array<string | number>]> = [
  [0, ['content', 'parts', 0, 'functionCall', 'args']],
  [1, ['content', 'parts', 0, 'functionResponse', 'response']],
  [4, ['content', 'parts', 0, 'text']],
  [4, ['content', 'parts']],
]
/** A real event with a deep, big or odd value where the engine looks hardest. */
export const targetedEventText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...DEEP_SPOTS), fc.oneof(deepText, bigText, jsonValueText))
  .map(([[event, path], text]) => spliceAt(SAMPLE_EVENTS[event], path, text))

const CASE_SPOTS: Array<Array<string | number>> = [
  ['eval_case', 'conversation', 0, 'intermediate_data', 'tool_uses', 0, 'args'],
  ['eval_case', 'conversation', 0, 'intermediate_data', 'tool_responses', 0, 'response'],
  ['eval_case', 'conversation', 0, 'final_response'],
  ['eval_case', 'conversation'],
  ['eval_config', 'criteria'],
]

const mutated = (templates: unknown[]) =>
  fc
    .tuple(fc.constantFrom(...templates), fc.nat(), hostileText, key)
    .map(([template, pick, text, newKey]) => splice(template, pick, text, newKey))

/** One ADK event as text: real, mutated in one spot, or anything at all. */
export const eventText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SAMPLE_EVENTS).map((e) => JSON.stringify(e)) },
  { weight: 6, arbitrary: mutated(SAMPLE_EVENTS) },
  { weight: 2, arbitrary: targetedEventText },
  { weight: 2, arbitrary: hostileText },
)

/** A `POST /v1/sessions` body as text: real specs mutated in one spot, or anything. */
export const createBodyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: mutated([{ eval_config: SAMPLE_CONFIG, eval_case: SAMPLE_CASE }, { eval_config: SAMPLE_CONFIG }]) },
  { weight: 2, arbitrary: mutated([{ eval_set: SAMPLE_EVAL_SET, eval_id: SAMPLE_CASE.eval_id }]) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...CASE_SPOTS), fc.oneof(deepText, bigText, jsonValueText))
      .map(([path, text]) => spliceAt({ eval_config: SAMPLE_CONFIG, eval_case: SAMPLE_CASE }, path, text)),
  },
  { weight: 2, arbitrary: hostileText },
  { weight: 1, arbitrary: fc.constant('') },
)

/** An eval set, eval config or legacy file as text, for the file parsers. */
export const evalFileText: fc.Arbitrary<string> = fc.oneof(
  mutated([SAMPLE_EVAL_SET, SAMPLE_CONFIG, SAMPLE_CASE]),
  mutated([[{ query: 'q', expected_tool_use: [{ tool_name: 't', tool_input: {} }], reference: 'r' }]]),
  hostileText,
)
